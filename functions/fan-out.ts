import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseFanOutMessage } from '../lib/delivery/messages';
import { logger } from '../lib/logger';
import { emitMetrics } from '../lib/metrics';
import { fanOut } from '../lib/services';

/** FanOutQueue → one delivery message per covering subscription. A failed record is retried by the queue. */
export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>()
  .use(emitMetrics())
  .handler(async (event, context) => {
    logger.setContext({ requestId: context.awsRequestId, function: 'fanOut' });
    // The records of a batch are independent events (a storm): fanned out side by side.
    const failed: SQSBatchResponse['batchItemFailures'] = [];
    const firstPages = new Map();
    await Promise.all(
      event.Records.map(async (record) => {
        try {
          const enqueued = await fanOut().run(
            parseFanOutMessage(record.body),
            () => context.getRemainingTimeInMillis(),
            firstPages,
          );
          logger.debug('fanned out', { messageId: record.messageId, enqueued });
        } catch (error) {
          logger.error('fan-out failed; the queue retries it', { messageId: record.messageId, error });
          failed.push({ itemIdentifier: record.messageId });
        }
      }),
    );
    return { batchItemFailures: failed };
  });
