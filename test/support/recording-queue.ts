import type { OutgoingMessage, QueueName, QueuePort } from '../../lib/queue/queue-port';

/** A QueuePort that keeps what it is given: the bodies sent per queue and the visibility changes. */
export class RecordingQueue implements QueuePort {
  readonly sent: Record<QueueName, string[]> = {
    'fan-out': [],
    delivery: [],
    'dead-letter': [],
    cleanup: [],
  };
  readonly visibility: { receiptHandle: string; timeoutMs: number }[] = [];

  async send(queue: QueueName, messages: readonly OutgoingMessage[]): Promise<void> {
    this.sent[queue].push(...messages.map((m) => m.body));
  }

  async changeVisibility(_queue: QueueName, receiptHandle: string, timeoutMs: number): Promise<void> {
    this.visibility.push({ receiptHandle, timeoutMs });
  }
}
