import {
  type OutgoingMessage,
  type QueueName,
  type QueuePort,
  SEND_BATCH_SIZE,
} from '../../lib/queue/queue-port';

/**
 * A QueuePort that keeps what it is given: the bodies sent per queue, the send requests they took
 * (as the SQS adapter makes them: one per SEND_BATCH_SIZE messages of a send) and the visibility
 * changes.
 */
export class RecordingQueue implements QueuePort {
  readonly sent: Record<QueueName, string[]> = {
    'fan-out': [],
    delivery: [],
    'dead-letter': [],
    cleanup: [],
  };
  readonly requests: Record<QueueName, number> = { 'fan-out': 0, delivery: 0, 'dead-letter': 0, cleanup: 0 };
  readonly visibility: { receiptHandle: string; timeoutMs: number }[] = [];

  async send(queue: QueueName, messages: readonly OutgoingMessage[]): Promise<void> {
    this.sent[queue].push(...messages.map((m) => m.body));
    this.requests[queue] += Math.ceil(messages.length / SEND_BATCH_SIZE);
  }

  async changeVisibility(_queue: QueueName, receiptHandle: string, timeoutMs: number): Promise<void> {
    this.visibility.push({ receiptHandle, timeoutMs });
  }
}
