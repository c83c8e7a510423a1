import { vi } from 'vitest';

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

/** Captures the EMF lines printed while `action` runs (other console output passes through). */
export async function captureEmf(action: () => Promise<unknown>): Promise<EmfRecord[]> {
  const records: EmfRecord[] = [];
  const original = console.log;
  const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    const [first] = args;
    if (typeof first === 'string' && first.includes('"_aws"')) {
      records.push(JSON.parse(first) as EmfRecord);
      return;
    }
    original(...args);
  });
  try {
    await action();
  } finally {
    spy.mockRestore();
  }
  return records;
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
