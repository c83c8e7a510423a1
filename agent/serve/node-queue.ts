/**
 * A node's queues: the queues of lib/queue/queues.json in the node's journal, so that what was
 * sent survives a SIGKILL and a reboot, served to the queue functions by the event-source poller
 * (lib/queue/event-source.ts) in this process. The QueuePort the domain sends through, and the
 * store the poller receives from and deletes in. The same semantics as SQS and as `npm start`'s
 * local queue (docs/local-queue.md): a received message is hidden for the queue's visibility
 * time-out or the back-off a function gives it, a message received `maxReceiveCount` times goes
 * to the dead-letter queue, and a message received by a process that died is visible again at
 * the next start.
 */
import { randomUUID } from 'node:crypto';
import {
  DEFAULT_CONSUMERS,
  type PolledQueue,
  type PolledStore,
  type ReceivedMessage,
} from '../../lib/queue/event-source';
import type { OutgoingMessage, QueueName, QueuePort } from '../../lib/queue/queue-port';
import type { Journal } from './disk/journal';

interface QueuedMessage extends ReceivedMessage {
  readonly queue: QueueName;
  readonly seq: number;
  /** Received and neither deleted nor given a new visibility: in the hands of an invocation. */
  readonly leased: boolean;
  /** The queue a redrive moved it from. */
  readonly deadLetterSourceQueue?: string;
}

const PREFIX = 'queue#';
/** SQS keeps a message at most 14 days; the node keeps its dead letters as long. */
const RETENTION_MS = 14 * 24 * 3600 * 1000;
const keyOf = (message: Pick<QueuedMessage, 'queue' | 'seq'>) =>
  `${PREFIX}${message.queue}#${String(message.seq).padStart(15, '0')}`;

export class NodeQueue implements QueuePort, PolledStore {
  private readonly messages = new Map<QueueName, QueuedMessage[]>();
  private seq = 0;
  /** Called after a send or a visibility change: the poller looks again. */
  onChange: () => void = () => undefined;

  constructor(private readonly journal: Journal) {
    const now = Date.now();
    const recovered: { key: string; value?: unknown }[] = [];
    for (const [key, stored] of journal.scan<QueuedMessage>(PREFIX)) {
      let message = stored;
      if (message.queue === 'dead-letter' && message.sentAt < now - RETENTION_MS) {
        recovered.push({ key });
        continue;
      }
      // Its invocation died with the last process: visible again at once, as SQS shows it once
      // that invocation's time-out has passed.
      if (message.leased) {
        message = { ...message, leased: false, visibleAt: now };
        recovered.push({ key, value: message });
      }
      this.queueOf(message.queue).push(message);
      this.seq = Math.max(this.seq, message.seq);
    }
    if (recovered.length > 0) journal.commit(recovered);
  }

  async send(queue: QueueName, outgoing: readonly OutgoingMessage[]): Promise<void> {
    const now = Date.now();
    const sent = outgoing.map(
      (message): QueuedMessage => ({
        queue,
        seq: ++this.seq,
        messageId: randomUUID(),
        body: message.body,
        sentAt: now,
        visibleAt: now + (message.delayMs ?? 0),
        receiveCount: 0,
        firstReceivedAt: null,
        receiptHandle: null,
        leased: false,
      }),
    );
    this.journal.commit(sent.map((message) => ({ key: keyOf(message), value: message })));
    this.queueOf(queue).push(...sent);
    this.onChange();
  }

  async changeVisibility(queue: QueueName, receiptHandle: string, timeoutMs: number): Promise<void> {
    this.update(queue, receiptHandle, (message) => ({
      ...message,
      visibleAt: Date.now() + timeoutMs,
      leased: false,
    }));
    this.onChange();
  }

  receive(queue: PolledQueue, max: number, visibilityMs: number): ReceivedMessage[] {
    const now = Date.now();
    const budget = DEFAULT_CONSUMERS.find((consumer) => consumer.queue === queue)?.maxReceiveCount;
    const received: QueuedMessage[] = [];
    const moved: QueuedMessage[] = [];
    const writes: { key: string; value?: unknown }[] = [];
    for (const message of this.queueOf(queue)) {
      if (received.length >= max) break;
      if (message.visibleAt > now) continue;
      if (budget !== undefined && message.receiveCount >= budget) {
        const deadLetter: QueuedMessage = {
          ...message,
          queue: 'dead-letter',
          seq: ++this.seq,
          visibleAt: now,
          receiptHandle: null,
          leased: false,
          deadLetterSourceQueue: queue,
        };
        writes.push({ key: keyOf(message) }, { key: keyOf(deadLetter), value: deadLetter });
        moved.push(deadLetter);
        continue;
      }
      const receiveCount = message.receiveCount + 1;
      received.push({
        ...message,
        receiveCount,
        firstReceivedAt: message.firstReceivedAt ?? now,
        visibleAt: now + visibilityMs,
        receiptHandle: `${message.messageId}.${receiveCount}.${randomUUID()}`,
        leased: true,
      });
    }
    writes.push(...received.map((message) => ({ key: keyOf(message), value: message })));
    if (writes.length === 0) return [];
    this.journal.commit(writes);
    const receivedBySeq = new Map(received.map((message) => [message.seq, message]));
    const movedFrom = new Set(moved.map((message) => message.messageId));
    this.messages.set(
      queue,
      this.queueOf(queue)
        .filter((message) => !movedFrom.has(message.messageId))
        .map((message) => receivedBySeq.get(message.seq) ?? message),
    );
    this.queueOf('dead-letter').push(...moved);
    return received;
  }

  deleteAll(queue: PolledQueue, receiptHandles: string[]): void {
    const handles = new Set(receiptHandles);
    const gone = this.queueOf(queue).filter(
      (message) => message.receiptHandle !== null && handles.has(message.receiptHandle),
    );
    if (gone.length === 0) return;
    this.journal.commit(gone.map((message) => ({ key: keyOf(message) })));
    this.messages.set(
      queue,
      this.queueOf(queue).filter((message) => !gone.includes(message)),
    );
  }

  nextVisibleAt(queue: PolledQueue): number {
    return Math.min(Number.POSITIVE_INFINITY, ...this.queueOf(queue).map((message) => message.visibleAt));
  }

  /** Each queue's messages, and how many are visible now (the node's health shows them). */
  counts(): Record<QueueName, { total: number; visible: number }> {
    const now = Date.now();
    const count = (queue: QueueName) => {
      const messages = this.queueOf(queue);
      return {
        total: messages.length,
        visible: messages.filter((message) => message.visibleAt <= now).length,
      };
    };
    return {
      'fan-out': count('fan-out'),
      delivery: count('delivery'),
      cleanup: count('cleanup'),
      'dead-letter': count('dead-letter'),
    };
  }

  private queueOf(queue: QueueName): QueuedMessage[] {
    let messages = this.messages.get(queue);
    if (!messages) {
      messages = [];
      this.messages.set(queue, messages);
    }
    return messages;
  }

  private update(
    queue: QueueName,
    receiptHandle: string,
    change: (message: QueuedMessage) => QueuedMessage,
  ): void {
    const messages = this.queueOf(queue);
    const i = messages.findIndex((message) => message.receiptHandle === receiptHandle);
    const message = messages[i];
    if (!message) return;
    const changed = change(message);
    this.journal.commit([{ key: keyOf(changed), value: changed }]);
    messages[i] = changed;
  }
}
