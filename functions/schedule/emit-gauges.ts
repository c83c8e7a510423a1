import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { emitMetrics, metricsOf } from '../../lib/metrics';
import { counters } from '../../lib/services';
import { tracing } from '../../lib/tracing';

/** Runs every minute, so dashboards show the counts even when nothing changes. */
export const handler = middy<unknown, void, Error, Context>()
  .use(tracing())
  .use(emitMetrics())
  .handler(async (_event, context) => {
    const counts = await counters().counts();
    const metrics = metricsOf(context);
    metrics.count('ActiveSubscriptions', counts.subscriptions);
    metrics.count('ActivePublishers', counts.publishers);
  });
