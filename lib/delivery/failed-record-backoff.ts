import { logger } from '../logger';
import type { QueueName, QueuePort } from '../queue/queue-port';
import { type Backoff, backoffMs } from './retry-policy';

/** A record of an SQS event, as much of it as its back-off needs. */
export interface FailedRecord {
  readonly messageId: string;
  readonly receiptHandle: string;
  /** ApproximateReceiveCount: 1 on the first receive. */
  readonly receiveCount: number;
}

/**
 * Brings a record that failed back after the retry policy's back-off for its receive count (about
 * 1 s, 2 s, 4 s … with jitter) instead of the queue's visibility time-out, which is sized for the
 * function's time-out (6 minutes on the fan-out queue): a fan-out that failed on a passing fault
 * is run again within seconds. The record still counts a receive each time, so the queue's redrive
 * policy bounds the retries (lib/queue/queues.json's maxReceiveCount, sized for this back-off:
 * docs/delivery.md). A record whose whole invocation failed (a time-out, a crash) is not told
 * apart by anyone and keeps the visibility time-out.
 */
export class FailedRecordBackoff {
  constructor(
    private readonly queue: QueuePort,
    private readonly queueName: QueueName,
    private readonly backoff: Backoff,
  ) {}

  /** Never throws: when the queue cannot be told, the record comes back after its visibility time-out. */
  async hide(record: FailedRecord): Promise<void> {
    const delayMs = backoffMs(record.receiveCount, this.backoff);
    try {
      await this.queue.changeVisibility(this.queueName, record.receiptHandle, delayMs);
      logger.warn('failed record retried after a back-off', {
        queue: this.queueName,
        messageId: record.messageId,
        receiveCount: record.receiveCount,
        delayMs,
      });
    } catch (error) {
      logger.error(
        "could not shorten a failed record's back-off; it comes back after the visibility time-out",
        {
          queue: this.queueName,
          messageId: record.messageId,
          error,
        },
      );
    }
  }
}
