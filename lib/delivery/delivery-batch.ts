import type { DeliveryStore } from '../domain/ports';
import { logger } from '../logger';
import type { Metrics } from '../metrics';
import type { QueuePort } from '../queue/queue-port';
import type { AttemptResult, Deliverer } from './deliverer';
import { type DeadLetter, MalformedMessageError, parseDeliveryMessage } from './messages';

/** One received message of the delivery queue, as an SQS event record gives it. */
export interface ReceivedMessage {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
  /** 1 on the first receive. */
  readonly receiveCount: number;
  /** Its first receive (ms since the epoch): where a redriven dead letter's new retry window starts. */
  readonly firstReceivedAt?: number;
}

/**
 * Runs a batch of delivery messages, all at once, so a consumer that hangs delays no other. Returns
 * the ids of the messages to keep (SQS partial batch response): those are retried once the
 * visibility time-out set here — the back-off — has passed. Everything else is deleted: delivered,
 * dropped, or dead-lettered with its reason: on the dead-letter queue and, for its consumer to see
 * and redrive, with its subscription in the table.
 */
export class DeliveryBatch {
  constructor(
    private readonly deliverer: Deliverer,
    private readonly queue: QueuePort,
    private readonly letters: Pick<DeliveryStore, 'recordDeadLetter'>,
  ) {}

  async process(messages: readonly ReceivedMessage[], metrics: Metrics): Promise<string[]> {
    const kept = await Promise.all(messages.map((message) => this.processOne(message, metrics)));
    return messages.filter((_, i) => kept[i]).map((message) => message.messageId);
  }

  /** True when the message must stay on the queue. */
  private async processOne(message: ReceivedMessage, metrics: Metrics): Promise<boolean> {
    let result: AttemptResult;
    try {
      const redrivenAt = new Date(message.firstReceivedAt ?? Date.now());
      result = await this.deliverer.attempt(
        parseDeliveryMessage(message.body, redrivenAt),
        message.receiveCount,
      );
    } catch (error) {
      if (error instanceof MalformedMessageError) {
        return this.deadLetter(
          { kind: 'dead-letter', reason: `unreadable message: ${error.message}`, body: message.body },
          metrics,
        );
      }
      // The store failed: the queue brings the message back after its visibility time-out.
      logger.error('delivery attempt could not run', { messageId: message.messageId, error });
      return true;
    }
    if (result.kind !== 'delivered' && result.failed) metrics.count('NotificationDeliveryFailures');
    switch (result.kind) {
      case 'delivered':
        metrics.count('NotificationsDelivered');
        metrics.deliveryLatency(result.latencyMs);
        return false;
      case 'dropped':
        return false;
      case 'dead-letter':
        return this.deadLetter(result.letter, metrics, result.letter);
      case 'retry':
        try {
          await this.queue.changeVisibility('delivery', message.receiptHandle, result.delayMs);
        } catch (error) {
          // Kept anyway: it comes back after the queue's own visibility time-out instead.
          logger.error('could not set the retry back-off', { messageId: message.messageId, error });
        }
        return true;
    }
  }

  private async deadLetter(letter: object, metrics: Metrics, kept?: DeadLetter): Promise<boolean> {
    try {
      if (kept) await this.letters.recordDeadLetter(kept);
      await this.queue.send('dead-letter', [{ body: JSON.stringify(letter) }]);
    } catch (error) {
      // Not lost: kept on the delivery queue, it is attempted (and judged) again later.
      logger.error('could not dead-letter a notification; it stays queued', { error });
      return true;
    }
    metrics.count('NotificationsDeadLettered');
    return false;
  }
}
