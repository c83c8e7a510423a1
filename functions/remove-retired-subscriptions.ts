import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../lib/logger';
import { parseRemovalMessage } from '../lib/queue/queued-removal';
import { subscriptions } from '../lib/services';

/**
 * CleanupQueue → removes the items of subscriptions delete-all retired, page by page, and
 * re-enqueues the rest before its time runs out. A failed record is retried by the queue.
 */
export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>().handler(async (event, context) => {
  logger.setContext({ requestId: context.awsRequestId, function: 'removeRetiredSubscriptions' });
  const failed: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      await subscriptions().removeRetired(parseRemovalMessage(record.body), () =>
        context.getRemainingTimeInMillis(),
      );
    } catch (error) {
      logger.error('removal of retired subscriptions failed; the queue retries it', {
        messageId: record.messageId,
        error,
      });
      failed.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failed };
});
