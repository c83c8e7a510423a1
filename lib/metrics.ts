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
  | 'NotificationsDeadLettered'
  /** Refusals (docs/security.md's threat table): a producer without the grant for an address, */
  | 'ProducerGrantRefusals'
  /** a principal acting on another's publisher, */
  | 'PublisherOwnershipRefusals'
  /** a publisher over its event rate, */
  | 'PublisherRateRefusals'
  /** a quota reached. */
  | 'QuotaRefusals'
  /** The breaker: endpoints suspended (docs/delivery.md), one per suspension. */
  | 'EndpointsSuspended';

export interface Metrics {
  count(name: CountMetric, value?: number): void;
  /** Milliseconds from acceptance of the event to the consumer's 2xx. */
  deliveryLatency(milliseconds: number): void;
}

type ContextWithMetrics = Context & { metrics?: Metrics };

/** The metrics of the current invocation, attached by `emitMetrics()`. */
export function metricsOf(context: Context): Metrics {
  const metrics = (context as ContextWithMetrics).metrics;
  if (!metrics) throw new Error('metricsOf() needs the emitMetrics() middleware on this handler');
  return metrics;
}

/**
 * aws-embedded-metrics, loaded at the first flush that has something to print: its module (the
 * logger, its environments and sinks, 36 KiB bundled) costs about 4-6 ms of a cold start when
 * evaluated at import, and most invocations record no metric. The library picks its environment
 * when it is loaded: AWS_EMF_ENVIRONMENT, `Lambda` when deployed and `Local` under serverless
 * offline and in the tests (serverless.yml, vitest.config.mts), so it never probes a metadata
 * endpoint.
 */
let library: Promise<typeof import('aws-embedded-metrics')> | undefined;
const embeddedMetrics = () => {
  library ??= import('aws-embedded-metrics');
  return library;
};

type Recorded = { name: string; value: number; unit: 'Count' | 'Milliseconds' };

/**
 * Gives each invocation its own metrics and flushes them through an aws-embedded-metrics logger
 * when the invocation ends, successfully or not: EMF records on stdout (one per invocation, split
 * by the library at 100 values of a metric), which CloudWatch Logs turns into metrics. Nothing is
 * printed when nothing was recorded.
 */
export function emitMetrics<TEvent, TResult>(): middy.MiddlewareObj<TEvent, TResult, Error, Context> {
  const flush = async (request: middy.Request<TEvent, TResult, Error, Context>) => {
    const pending = (request.internal as { flushMetrics?: () => Promise<void> }).flushMetrics;
    await pending?.();
  };
  return {
    before: async (request) => {
      const recorded: Recorded[] = [];
      const metrics: Metrics = {
        count(name, value = 1) {
          recorded.push({ name, value, unit: 'Count' });
        },
        deliveryLatency(milliseconds) {
          recorded.push({ name: 'DeliveryLatency', value: milliseconds, unit: 'Milliseconds' });
        },
      };
      (request.context as ContextWithMetrics).metrics = metrics;
      (request.internal as { flushMetrics?: () => Promise<void> }).flushMetrics = async () => {
        if (recorded.length === 0) return;
        const { createMetricsLogger, Unit } = await embeddedMetrics();
        const logger = createMetricsLogger();
        logger.setNamespace(NAMESPACE);
        logger.setDimensions({ Service: config().serviceName, Stage: config().stage });
        logger.setProperty('RequestId', request.context.awsRequestId);
        for (const { name, value, unit } of recorded.splice(0)) logger.putMetric(name, value, Unit[unit]);
        await logger.flush();
      };
    },
    after: flush,
    onError: flush,
  };
}
