import Ajv from 'ajv';
import { expect, vi } from 'vitest';
import emfSchema from './emf-schema.json';

/** One CloudWatch embedded-metric-format record, as a handler prints it on stdout. */
export interface EmfRecord {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string }[];
    }[];
  };
  [member: string]: unknown;
}

const validateSchema = new Ajv({ allErrors: true, strict: false }).compile(emfSchema);

/**
 * What makes `line` something other than a valid EMF record: the schema of the specification,
 * and what a schema cannot say: every referenced dimension is a string member of the root, every
 * metric a number or an array of at most 100 numbers. Empty when it is valid.
 */
export function emfProblems(line: string): string[] {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return ['not JSON'];
  }
  if (!validateSchema(record)) {
    return (validateSchema.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
  }
  const emf = record as EmfRecord;
  const problems: string[] = [];
  for (const directive of emf._aws.CloudWatchMetrics) {
    for (const dimension of directive.Dimensions.flat()) {
      if (typeof emf[dimension] !== 'string') problems.push(`dimension ${dimension} is not a string member`);
    }
    for (const { Name } of directive.Metrics) {
      const value = emf[Name];
      const values = Array.isArray(value) ? value : [value];
      if (values.length > 100 || values.some((v) => typeof v !== 'number' || !Number.isFinite(v))) {
        problems.push(`metric ${Name} is not a number or at most 100 of them`);
      }
    }
  }
  return problems;
}

/**
 * Captures the EMF lines printed while `action` runs (other output passes through), each checked
 * to be a valid EMF record. aws-embedded-metrics' console sink prints with console.log, or, under
 * Lambda's JSON log format, with a Console on process.stdout: both are captured.
 */
export async function captureEmf(action: () => Promise<unknown>): Promise<EmfRecord[]> {
  const lines: string[] = [];
  const isEmf = (text: unknown): text is string => typeof text === 'string' && text.includes('"_aws"');
  const originalLog = console.log;
  const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    if (isEmf(args[0])) lines.push(args[0]);
    else originalLog(...args);
  });
  const originalWrite = process.stdout.write.bind(process.stdout);
  const write = vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: unknown, ...rest: never[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString() : undefined;
    if (isEmf(text)) {
      lines.push(...text.split('\n').filter(isEmf));
      return true;
    }
    return originalWrite(chunk as string, ...rest);
  }) as typeof process.stdout.write);
  try {
    await action();
  } finally {
    log.mockRestore();
    write.mockRestore();
  }
  for (const line of lines) expect(emfProblems(line), line).toEqual([]);
  return lines.map((line) => JSON.parse(line) as EmfRecord);
}

/** The value of `name` across records, with its unit and dimensions. */
export function metricValues(records: EmfRecord[], name: string) {
  return records.flatMap((record) =>
    record._aws.CloudWatchMetrics.flatMap((directive) =>
      directive.Metrics.filter((metric) => metric.Name === name).map((metric) => ({
        namespace: directive.Namespace,
        unit: metric.Unit,
        dimensions: directive.Dimensions,
        dimensionValues: Object.fromEntries(directive.Dimensions.flat().map((d) => [d, record[d]])),
        value: record[name],
      })),
    ),
  );
}
