import type queues from './queues.json';

/**
 * The queues, as the service's code sees them. One adapter, SQS (`sqs-queue.ts`), in a deployment
 * and locally, where `scripts/local-queue.ts` speaks SQS's protocol. Receiving and deleting are
 * not here: the platform does them (SQS event sources invoke the functions and delete what they do
 * not report as failed; the local queue's poller does the same).
 *
 * lib/queue holds what knows of queues, as lib/store holds what knows of the table: this port, its
 * adapter and settings (queues.json), the poison-message rule every queue function follows
 * (unreadable-message.ts), and the domain ports that are done by sending a message:
 * `QueuedDelivery` (DeliveryPort) and `QueuedRemoval` (RetiredSubscriptionRemoval). The domain
 * (lib/domain) and delivery's engine (lib/delivery) see only ports.
 */
export type QueueName = keyof typeof queues;

/**
 * Messages per send request: SQS's SendMessageBatch takes at most 10, and bills a request as one
 * however few it carries, so a sender that can wait a moment fills them.
 */
export const SEND_BATCH_SIZE = 10;

export interface OutgoingMessage {
  readonly body: string;
  /** Hidden from consumers this long after sending (SQS rounds up to seconds, at most 15 minutes). */
  readonly delayMs?: number;
}

export interface QueuePort {
  /** Sends every message, or throws a ServiceUnavailableError; batching is the adapter's business. */
  send(queue: QueueName, messages: readonly OutgoingMessage[]): Promise<void>;
  /** Hides a received message for `timeoutMs` from now: the back-off before its next attempt. */
  changeVisibility(queue: QueueName, receiptHandle: string, timeoutMs: number): Promise<void>;
}
