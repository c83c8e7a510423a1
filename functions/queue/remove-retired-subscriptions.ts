import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../../lib/logger';
import { parseRemovalMessage } from '../../lib/queue/queued-removal';
import { subscriptions } from '../../lib/services';

/**
 * CleanupQueue → removes the items of subscriptions delete-all retired, page by page, and
 * re-enqueues the rest before its time runs out. A failed record is retried by the queue.
 */
export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event, context) => {
    const removeRecord = async (record: SQSRecord) => {
      try {
        await subscriptions().removeRetired(parseRemovalMessage(record.body), () =>
          context.getRemainingTimeInMillis(),
        );
      } catch (error) {
        logger.error('removal of retired subscriptions failed; the queue retries it', {
          messageId: record.messageId,
          error,
        });
        throw error;
      }
    };
    // One record after another: each may run until the invocation's time is nearly out.
    return processPartialResponse(event, removeRecord, new BatchProcessor(EventType.SQS), {
      context,
      processInParallel: false,
      throwOnFullBatchFailure: false,
    });
  });
