import type { DeadLetterStore } from '../domain/ports';
import { logger } from '../logger';
import type { Metrics } from '../metrics';
import type { OutgoingMessage, QueuePort } from '../queue/queue-port';
import { readOrDeadLetter } from '../queue/unreadable-message';
import { Coalescer } from './coalescer';
import type { AttemptResult, Deliverer } from './deliverer';
import type { FailedRecordBackoff } from './failed-record-backoff';
import {
  type DeadLetter,
  type DeliveryMessage,
  deliveryMessageOf,
  type PackEntry,
  parseDeliveryQueueMessage,
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

/** Where an attempt's notification came from, for its attempt count and the log. */
type Origin = Pick<ReceivedMessage, 'messageId' | 'receiveCount'>;

/** Notifications attempted where they were fanned out: their first attempt, in no queue message. */
const FANNED_OUT_HERE: Origin = { messageId: 'fanned out here', receiveCount: 1 };

/** What becomes of a notification after its attempt: nothing more, or another attempt later. */
type Next =
  | { readonly kind: 'done' }
  | {
      readonly kind: 'again';
      readonly delayMs: number;
      /** Attempts made so far: an attempt that only waited for another's lease made none. */
      readonly attemptsMade: number;
      readonly waited: boolean;
    };

const DONE: Next = { kind: 'done' };

/**
 * Runs a batch of delivery messages, every notification of every message at once, so a consumer
 * that hangs delays no other, whether or not they share a message. Returns the ids of the messages
 * to keep (SQS partial batch response): those are retried once the visibility time-out set here —
 * the back-off — has passed. Everything else is deleted: delivered, dropped, or dead-lettered with
 * its reason: on the dead-letter queue and, for its consumer to see and redrive, with its
 * subscription in the table.
 *
 * A pack (fan-out's many notifications to a message) is never kept for one of them: a notification
 * of it that must be tried again later leaves it as a message of its own, with its own delay and
 * the attempts it made, and the pack is deleted; the others are not sent again. Only when that
 * message cannot be sent is the pack kept, and its other notifications, delivered already, are
 * dropped by their cursors when it comes back.
 */
export class DeliveryBatch {
  /** The messages that leave packs in one turn of the event loop go in the same requests. */
  private readonly leaving: Coalescer<OutgoingMessage, void>;

  constructor(
    private readonly deliverer: Deliverer,
    private readonly queue: QueuePort,
    private readonly letters: DeadLetterStore,
    /** For an attempt the store kept from running: back after a back-off, not the visibility time-out. */
    private readonly storeFailure: FailedRecordBackoff,
  ) {
    this.leaving = new Coalescer((messages) =>
      queue
        .send('delivery', messages)
        .then(() => messages.map(() => ({ status: 'fulfilled', value: undefined }))),
    );
  }

  async process(messages: readonly ReceivedMessage[], metrics: Metrics): Promise<string[]> {
    const kept = await Promise.all(messages.map((message) => this.processMessage(message, metrics)));
    return messages.filter((_, i) => kept[i]).map((message) => message.messageId);
  }

  /** True when the message must stay on the queue. */
  private async processMessage(message: ReceivedMessage, metrics: Metrics): Promise<boolean> {
    let parsed: ReturnType<typeof parseDeliveryQueueMessage> | undefined;
    try {
      const redrivenAt = new Date(message.firstReceivedAt ?? Date.now());
      parsed = await readOrDeadLetter(this.queue, 'delivery', message.body, (body) =>
        parseDeliveryQueueMessage(body, redrivenAt),
      );
    } catch (error) {
      // Unreadable, and the dead-letter queue did not take it: a passing fault, retried after a back-off.
      logger.error('could not dead-letter an unreadable message; it stays queued', { error });
      await this.storeFailure.hide(message);
      return true;
    }
    if (!parsed) {
      metrics.count('NotificationsDeadLettered');
      return false;
    }
    const [single] = parsed.notifications;
    if (!parsed.packed && single) return this.keepSingle(message, single, metrics);
    const left = await this.attemptEach(parsed.notifications, message, metrics);
    if (left.every(Boolean)) return false;
    await this.storeFailure.hide(message);
    return true;
  }

  /**
   * Fan-out's notifications attempted in its own invocation (lib/delivery/fan-out.ts): as a pack's,
   * all at once, each to try again later leaving as a message of its own. For each, false when
   * that message could not be sent: the fan-out's record then fails and is run again.
   */
  deliverNow(entries: readonly PackEntry[], metrics: Metrics): Promise<boolean[]> {
    return this.attemptEach(entries.map(deliveryMessageOf), FANNED_OUT_HERE, metrics);
  }

  /** Each notification attempted at once; true for each done, or on the queue for its next attempt. */
  private attemptEach(
    notifications: readonly DeliveryMessage[],
    origin: Origin,
    metrics: Metrics,
  ): Promise<boolean[]> {
    return Promise.all(
      notifications.map(async (notification) => {
        const next = await this.attempt(notification, origin, metrics);
        return next.kind === 'done' || (await this.leave(notification, next));
      }),
    );
  }

  /** A message of one notification is kept for its retry, hidden for its back-off. */
  private async keepSingle(
    message: ReceivedMessage,
    notification: DeliveryMessage,
    metrics: Metrics,
  ): Promise<boolean> {
    const next = await this.attempt(notification, message, metrics);
    if (next.kind === 'done') return false;
    if (next.waited && (await this.leave(notification, next))) return false;
    try {
      await this.queue.changeVisibility('delivery', message.receiptHandle, next.delayMs);
    } catch (error) {
      // Kept anyway: it comes back after the queue's own visibility time-out instead.
      logger.error('could not set the retry back-off', { messageId: message.messageId, error });
    }
    return true;
  }

  /** One attempt of one notification of `message`, and what must follow it. */
  private async attempt(notification: DeliveryMessage, message: Origin, metrics: Metrics): Promise<Next> {
    // Every receive of this message was an attempt (a lease wait sends the notification anew, below).
    const attempt = (notification.attemptsMade ?? 0) + message.receiveCount;
    const later = (delayMs: number, waited = false): Next => ({
      kind: 'again',
      delayMs,
      attemptsMade: waited ? attempt - 1 : attempt,
      waited,
    });
    let result: AttemptResult;
    try {
      result = await this.deliverer.attempt(notification, attempt);
    } catch (error) {
      // The store failed: it comes back after the back-off of its attempt, as a failed POST does.
      logger.error('delivery attempt could not run', { messageId: message.messageId, error });
      return later(this.storeFailure.delayMs(attempt));
    }
    if (result.kind !== 'delivered' && result.failed) metrics.count('NotificationDeliveryFailures');
    switch (result.kind) {
      case 'delivered':
        metrics.count('NotificationsDelivered');
        metrics.deliveryLatency(result.latencyMs);
        return DONE;
      case 'dropped':
        if (notification.redriven) reportDroppedRedrive(notification, result.why);
        return DONE;
      case 'dead-letter':
        if (result.suspended) metrics.count('EndpointsSuspended');
        // Not lost when the dead-letter queue cannot take it: attempted (and judged) again later.
        return (await this.deadLetter(result.letter, metrics))
          ? later(this.storeFailure.delayMs(attempt))
          : DONE;
      case 'retry':
        return later(result.delayMs, !result.failed);
    }
  }

  /**
   * The notification goes on the queue as a message of its own, delayed until its next attempt,
   * carrying the attempts made so far. A notification of a pack always leaves it so. One that only
   * waited for another attempt's lease leaves its own message so too, rather than hiding it:
   * hiding would count the wait as a receive, and enough waits (a run of slow attempts for one
   * subscription and address) would reach the queue's maxReceiveCount, where SQS moves the message
   * to the dead-letter queue with no reason and no NotificationsDeadLettered. False when the send
   * failed: the message it was in is then kept.
   */
  private async leave(notification: DeliveryMessage, next: Next & { kind: 'again' }): Promise<boolean> {
    const { attemptsMade, delayMs } = next;
    const again: DeliveryMessage = { ...notification, ...(attemptsMade > 0 ? { attemptsMade } : {}) };
    try {
      await this.leaving.run({ body: JSON.stringify(again), delayMs });
      return true;
    } catch (error) {
      logger.error('could not send a notification on by itself; the message it was in is kept', { error });
      return false;
    }
  }

  /** True when the letter could not be dead-lettered: it stays queued. */
  private async deadLetter(letter: DeadLetter, metrics: Metrics): Promise<boolean> {
    try {
      await this.letters.recordDeadLetter(letter);
      await this.queue.send('dead-letter', [{ body: JSON.stringify(letter) }]);
    } catch (error) {
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
