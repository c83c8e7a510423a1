import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { config } from './config';

/** CloudWatch embedded metrics: one namespace, dimensions Service and Stage (the dashboard and alarms read them). */
export const NAMESPACE = 'OCloudNotifications';

export type CountMetric =
  | 'EventsPublished'
  | 'ActiveSubscriptions'
  | 'ActivePublishers'
  | 'NotificationsDelivered'
  | 'NotificationDeliveryFailures'
  | 'NotificationsDeadLettered';

export interface Metrics {
  count(name: CountMetric, value?: number): void;
  /** Milliseconds from acceptance of the event to the consumer's 2xx. */
  deliveryLatency(milliseconds: number): void;
}

type Unit = 'Count' | 'Milliseconds';
/** CloudWatch reads at most 100 values of a metric from one record. */
const MAX_VALUES_PER_RECORD = 100;

/**
 * Properties the Lambda environment of aws-embedded-metrics adds to each record, kept so that
 * logs read as before; absent outside Lambda.
 */
function lambdaProperties(): Record<string, string> {
  const env = process.env;
  const trace = env._X_AMZN_TRACE_ID?.includes('Sampled=1') ? env._X_AMZN_TRACE_ID : undefined;
  const entries = {
    executionEnvironment: env.AWS_EXECUTION_ENV,
    memorySize: env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    functionVersion: env.AWS_LAMBDA_FUNCTION_VERSION,
    logStreamId: env.AWS_LAMBDA_LOG_STREAM_NAME,
    traceId: trace,
  };
  return Object.fromEntries(Object.entries(entries).filter((e): e is [string, string] => Boolean(e[1])));
}

/**
 * The EMF records (CloudWatch embedded metric format) of one invocation's metrics: written here
 * rather than with aws-embedded-metrics, whose logger, validator and environments were a third of
 * every function's own bundle (docs/benchmarks.md) for what is one JSON line on stdout.
 */
export function emfRecords(
  recorded: Map<string, { unit: Unit; values: number[] }>,
  properties: Record<string, string>,
  timestamp = Date.now(),
): string[] {
  const records: string[] = [];
  for (let offset = 0; ; offset += MAX_VALUES_PER_RECORD) {
    const slice = [...recorded]
      .map(([name, { unit, values }]) => ({
        name,
        unit,
        values: values.slice(offset, offset + MAX_VALUES_PER_RECORD),
      }))
      .filter((metric) => metric.values.length > 0);
    if (slice.length === 0) return records;
    const record: Record<string, unknown> = {
      _aws: {
        Timestamp: timestamp,
        CloudWatchMetrics: [
          {
            Dimensions: [['Service', 'Stage']],
            Metrics: slice.map(({ name, unit }) => ({ Name: name, Unit: unit })),
            Namespace: NAMESPACE,
          },
        ],
      },
      Service: config().serviceName,
      Stage: config().stage,
      ...properties,
    };
    for (const { name, values } of slice) record[name] = values.length === 1 ? values[0] : values;
    records.push(JSON.stringify(record));
  }
}

/** Lambda's JSON log format would wrap a console line in its own JSON: EMF then goes to stdout as is. */
function writeRecord(line: string): void {
  if (process.env.AWS_LAMBDA_LOG_FORMAT === 'JSON') process.stdout.write(`${line}\n`);
  else console.log(line);
}

type ContextWithMetrics = Context & { metrics?: Metrics };

/** The metrics of the current invocation, attached by `emitMetrics()`. */
export function metricsOf(context: Context): Metrics {
  const metrics = (context as ContextWithMetrics).metrics;
  if (!metrics) throw new Error('metricsOf() needs the emitMetrics() middleware on this handler');
  return metrics;
}

/**
 * Gives each invocation its own metrics logger and flushes it (one EMF line on stdout) when the
 * invocation ends, successfully or not. Nothing is printed when nothing was recorded.
 */
export function emitMetrics<TEvent, TResult>(): middy.MiddlewareObj<TEvent, TResult, Error, Context> {
  const flush = async (request: middy.Request<TEvent, TResult, Error, Context>) => {
    const pending = (request.internal as { flushMetrics?: () => Promise<void> }).flushMetrics;
    await pending?.();
  };
  return {
    before: async (request) => {
      // Most requests record nothing: then nothing is printed.
      const recorded = new Map<string, { unit: Unit; values: number[] }>();
      const put = (name: string, value: number, unit: Unit) => {
        const metric = recorded.get(name) ?? { unit, values: [] };
        metric.values.push(value);
        recorded.set(name, metric);
      };
      const metrics: Metrics = {
        count(name, value = 1) {
          put(name, value, 'Count');
        },
        deliveryLatency(milliseconds) {
          put('DeliveryLatency', milliseconds, 'Milliseconds');
        },
      };
      (request.context as ContextWithMetrics).metrics = metrics;
      (request.internal as { flushMetrics?: () => Promise<void> }).flushMetrics = async () => {
        const properties = { ...lambdaProperties(), RequestId: request.context.awsRequestId };
        for (const line of emfRecords(recorded, properties)) writeRecord(line);
        recorded.clear();
      };
    },
    after: flush,
    onError: flush,
  };
}
