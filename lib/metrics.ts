import type middy from '@middy/core';
// Deep imports, not the package index: the index (and createMetricsLogger) pulls in environment
// detection for EC2, ECS and the CloudWatch agent (TCP/UDP sinks) into every bundle, ~20 KiB of
// minified code a Lambda never runs. Lambda (or Local, for offline and tests) writes EMF to stdout.
import type { IEnvironment } from 'aws-embedded-metrics/lib/environment/IEnvironment';
import { LambdaEnvironment } from 'aws-embedded-metrics/lib/environment/LambdaEnvironment';
import { LocalEnvironment } from 'aws-embedded-metrics/lib/environment/LocalEnvironment';
import { MetricsContext } from 'aws-embedded-metrics/lib/logger/MetricsContext';
import { MetricsLogger } from 'aws-embedded-metrics/lib/logger/MetricsLogger';
import { Unit } from 'aws-embedded-metrics/lib/logger/Unit';
import type { Context } from 'aws-lambda';
import { config } from './config';

/** CloudWatch embedded metrics of contract section 8: one namespace, dimensions Service and Stage. */
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

/** What `createMetricsLogger()` would detect where these functions run: Lambda, or the override. */
let environment: Promise<IEnvironment> | undefined;
const resolveEnvironment = () => {
  environment ??= Promise.resolve(
    process.env.AWS_EMF_ENVIRONMENT?.toLowerCase() === 'local'
      ? new LocalEnvironment()
      : new LambdaEnvironment(),
  );
  return environment;
};

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
      // Most requests record nothing: the logger is built on the first metric, not per request.
      let logger: MetricsLogger | undefined;
      const recorder = () => {
        if (!logger) {
          logger = new MetricsLogger(resolveEnvironment, MetricsContext.empty());
          logger.setNamespace(NAMESPACE);
          logger.setDimensions({ Service: config().serviceName, Stage: config().stage });
          logger.setProperty('RequestId', request.context.awsRequestId);
        }
        return logger;
      };
      const metrics: Metrics = {
        count(name, value = 1) {
          recorder().putMetric(name, value, Unit.Count);
        },
        deliveryLatency(milliseconds) {
          recorder().putMetric('DeliveryLatency', milliseconds, Unit.Milliseconds);
        },
      };
      (request.context as ContextWithMetrics).metrics = metrics;
      (request.internal as { flushMetrics?: () => Promise<void> }).flushMetrics = async () => {
        await logger?.flush();
      };
    },
    after: flush,
    onError: flush,
  };
}
