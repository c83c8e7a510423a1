import type { Backoff } from '../backoff';
import { logger } from '../logger';
import type { QueueName, QueuePort } from '../queue/queue-port';
import { notificationBackoffMs } from './retry-policy';

/** A record of an SQS event, as much of it as its back-off needs. */
export interface FailedRecord {
  readonly messageId: string;
  readonly receiptHandle: string;
  /** ApproximateReceiveCount: 1 on the first receive. */
  readonly receiveCount: number;
}

/**
 * Brings a record that failed back after the retry policy's back-off for its receive count (about
 * 1 s, 2 s, 4 s … with jitter) instead of its queue's visibility time-out, which is sized for the
 * function's time-out (6 minutes for fan-out, 3 for delivery): a fan-out, or a delivery attempt the
 * store kept from running, that failed on a passing fault is run again within seconds. Each retry
 * still counts a receive, so the queue's redrive policy bounds them (lib/queue/queues.json's
 * maxReceiveCount, sized for this back-off: docs/delivery.md). An invocation that fails whole (a
 * time-out, a crash) cannot do this, and its batch keeps the visibility time-out.
 */
export class FailedRecordBackoff {
  constructor(
    private readonly queue: QueuePort,
    private readonly queueName: QueueName,
    private readonly backoff: Backoff,
  ) {}

  /** The back-off after the `receiveCount`-th receive failed. */
  delayMs(receiveCount: number): number {
    return notificationBackoffMs(receiveCount, this.backoff);
  }

  /** Never throws: when the queue cannot be told, the record comes back after its visibility time-out. */
  async hide(record: FailedRecord): Promise<void> {
    const delayMs = this.delayMs(record.receiveCount);
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
