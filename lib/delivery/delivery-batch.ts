import type { DeliveryStore } from '../domain/ports';
import { logger } from '../logger';
import type { Metrics } from '../metrics';
import type { QueuePort } from '../queue/queue-port';
import type { AttemptResult, Deliverer } from './deliverer';
import type { FailedRecordBackoff } from './failed-record-backoff';
import {
  type DeadLetter,
  type DeliveryMessage,
  MalformedMessageError,
  parseDeliveryMessage,
} from './messages';

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
    /** For an attempt the store kept from running: back after a back-off, not the visibility time-out. */
    private readonly storeFailure: FailedRecordBackoff,
  ) {}

  async process(messages: readonly ReceivedMessage[], metrics: Metrics): Promise<string[]> {
    const kept = await Promise.all(messages.map((message) => this.processOne(message, metrics)));
    return messages.filter((_, i) => kept[i]).map((message) => message.messageId);
  }

  /** True when the message must stay on the queue. */
  private async processOne(message: ReceivedMessage, metrics: Metrics): Promise<boolean> {
    let notification: DeliveryMessage;
    try {
      notification = parseDeliveryMessage(message.body, new Date(message.firstReceivedAt ?? Date.now()));
    } catch (error) {
      if (!(error instanceof MalformedMessageError)) throw error;
      return this.deadLetter(
        { kind: 'dead-letter', reason: `unreadable message: ${error.message}`, body: message.body },
        metrics,
      );
    }
    // Every receive of this message was an attempt (a lease wait sends the message anew, below).
    const attempt = (notification.attemptsMade ?? 0) + message.receiveCount;
    let result: AttemptResult;
    try {
      result = await this.deliverer.attempt(notification, attempt);
    } catch (error) {
      // The store failed: the message comes back after the back-off of its attempt, as a failed POST does.
      logger.error('delivery attempt could not run', { messageId: message.messageId, error });
      await this.storeFailure.hide({ ...message, receiveCount: attempt });
      return true;
    }
    if (result.kind !== 'delivered' && result.failed) metrics.count('NotificationDeliveryFailures');
    switch (result.kind) {
      case 'delivered':
        metrics.count('NotificationsDelivered');
        metrics.deliveryLatency(result.latencyMs);
        return false;
      case 'dropped':
        if (notification.redriven) reportDroppedRedrive(notification, result.why);
        return false;
      case 'dead-letter':
        return this.deadLetter(result.letter, metrics, result.letter);
      case 'retry':
        if (!result.failed && (await this.sendAgain(notification, attempt - 1, result.delayMs))) return false;
        try {
          await this.queue.changeVisibility('delivery', message.receiptHandle, result.delayMs);
        } catch (error) {
          // Kept anyway: it comes back after the queue's own visibility time-out instead.
          logger.error('could not set the retry back-off', { messageId: message.messageId, error });
        }
        return true;
    }
  }

  /**
   * An attempt that waited for another attempt's lease made none: the notification goes back on
   * the queue as a new message, delayed by the wait, carrying the attempts made so far, and this
   * one is deleted. Hiding this message instead would count the wait as a receive, and enough
   * waits (a run of slow attempts for one subscription and address) would reach the queue's
   * maxReceiveCount, where SQS moves the message to the dead-letter queue with no reason and no
   * NotificationsDeadLettered. False when the send failed: the message is then hidden as before.
   */
  private async sendAgain(
    notification: DeliveryMessage,
    attemptsMade: number,
    delayMs: number,
  ): Promise<boolean> {
    const again: DeliveryMessage = { ...notification, ...(attemptsMade > 0 ? { attemptsMade } : {}) };
    try {
      await this.queue.send('delivery', [{ body: JSON.stringify(again), delayMs }]);
      return true;
    } catch (error) {
      logger.error('could not send a waiting notification again; it is hidden instead', { error });
      return false;
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

const DROPPED_BECAUSE = {
  superseded: 'a newer event for the address has been delivered to the subscription since',
  'subscription deleted': 'its subscription no longer exists (deleted, or made anew after a delete-all)',
  gone: 'the consumer answered 410 Gone, so its subscription was deleted',
} as const;

/**
 * A redriven dead letter that is not delivered after all: whoever redrove it is told why (`npm
 * start` prints a line's `notice`; deployed, it is in the deliver function's log).
 */
function reportDroppedRedrive(notification: DeliveryMessage, why: keyof typeof DROPPED_BECAUSE): void {
  const { subscriptionId, resourceAddress, event } = notification;
  logger.warn('redriven notification dropped', {
    notice: `redriven notification dropped: event ${event.source} ${event.id} at ${resourceAddress} for subscription ${subscriptionId}: ${DROPPED_BECAUSE[why]}`,
    subscriptionId,
    resourceAddress,
    eventId: event.id,
    why,
  });
}
