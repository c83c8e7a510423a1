import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../../lib/logger';
import { parseRemovalMessage } from '../../lib/queue/queued-removal';
import { readOrDeadLetter } from '../../lib/queue/unreadable-message';
import { queue, subscriptions } from '../../lib/services';
import { tracing } from '../../lib/tracing';

/**
 * CleanupQueue → removes the items of subscriptions delete-all retired, page by page, and
 * re-enqueues the rest before its time runs out. An unreadable message is dead-lettered at once,
 * with why, as fan-out and deliver do. A record that failed otherwise comes back after the queue's
 * visibility time-out (6 minutes), not after a short back-off as theirs do: nobody waits for a
 * clean-up (its items are invisible already), and its failures are mostly throttling in a large
 * one, which a long pause suits (docs/delivery.md: "Poison messages").
 */
export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>()
  .use(tracing())
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event, context) => {
    const removeRecord = async (record: SQSRecord) => {
      try {
        const job = await readOrDeadLetter(queue(), 'cleanup', record.body, parseRemovalMessage);
        if (job) await subscriptions().removeRetired(job, () => context.getRemainingTimeInMillis());
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
