import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { notificationTrace, parseFanOutMessage } from '../../lib/delivery/messages';
import { logger } from '../../lib/logger';
import { emitMetrics, metricsOf } from '../../lib/metrics';
import { readOrDeadLetter } from '../../lib/queue/unreadable-message';
import { fanOut, fanOutBackoff, queue } from '../../lib/services';
import { tracing } from '../../lib/tracing';

/**
 * FanOutQueue → the notifications of each covering subscription, attempted here when the batch
 * has few, else packed onto the delivery queue. An unreadable message is
 * dead-lettered at once, with why; a record that failed otherwise is retried by the queue after a
 * notification's short back-off (someone waits for its notifications), until the fan-out queue's
 * maxReceiveCount (docs/delivery.md: "Poison messages").
 */
export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>()
  .use(tracing())
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(emitMetrics())
  .handler(async (event, context) => {
    // The records of a batch are independent events (a storm): fanned out side by side, sharing
    // the first pages of the ancestors they have in common and filling the same send requests;
    // a batch of few notifications is delivered here (docs/delivery.md).
    const batch = fanOut().batch(metricsOf(context));
    const fanOutRecord = async (record: SQSRecord) => {
      let traceId: string | undefined;
      try {
        const message = await readOrDeadLetter(queue(), 'fan-out', record.body, parseFanOutMessage);
        if (!message) return;
        traceId = notificationTrace(message).traceId;
        const enqueued = await fanOut().run(message, () => context.getRemainingTimeInMillis(), batch);
        // A notification's path (docs/operations.md): one line per event and invocation.
        logger.info('event fanned out', {
          traceId,
          publisherId: message.publisherId,
          source: message.event.source,
          eventId: message.event.id,
          enqueued,
          ...(message.continuation ? { continued: true } : {}),
          messageId: record.messageId,
        });
      } catch (error) {
        logger.error('fan-out failed; the queue retries it', { traceId, messageId: record.messageId, error });
        await fanOutBackoff().hide({
          messageId: record.messageId,
          receiptHandle: record.receiptHandle,
          receiveCount: Number(record.attributes.ApproximateReceiveCount) || 1,
        });
        throw error;
      }
    };
    // A processor per invocation: it keeps the batch's results, and invocations may overlap in a
    // process (serverless offline, the tests). A batch whose every record failed is answered like
    // any other, each record reported, rather than as a failed invocation.
    return processPartialResponse(event, fanOutRecord, new BatchProcessor(EventType.SQS), {
      context,
      throwOnFullBatchFailure: false,
    });
  });
