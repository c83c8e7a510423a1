import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../../lib/logger';
import { emitMetrics, metricsOf } from '../../lib/metrics';
import { deliveryBatch } from '../../lib/services';
import { tracing } from '../../lib/tracing';

/** DeliveryQueue → one POST per message, all at once; what must be retried is reported back. */
export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>()
  .use(tracing())
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(emitMetrics())
  .handler(async (event, context) => {
    const messages = event.Records.map((record) => ({
      messageId: record.messageId,
      receiptHandle: record.receiptHandle,
      body: record.body,
      receiveCount: Number(record.attributes.ApproximateReceiveCount) || 1,
      firstReceivedAt: Number(record.attributes.ApproximateFirstReceiveTimestamp) || undefined,
    }));
    const kept = await deliveryBatch().process(messages, metricsOf(context));
    return { batchItemFailures: kept.map((itemIdentifier) => ({ itemIdentifier })) };
  });
