import { vi } from 'vitest';

/**
 * The positive signal a "nothing else arrived" check waits for before asserting absence: every
 * queue that invokes a function is empty. A message stays on its queue, hidden, while its
 * invocation runs and comes back if it fails, so an empty queue means nothing is pending, in
 * flight or due for a retry: whatever was going to be delivered has been.
 */
export interface QueueIdleOptions {
  /** The local queue's base URL; by default the one the handlers use (DELIVERY_QUEUE_URL's origin). */
  readonly queueUrl?: string;
  /**
   * Only messages whose body contains this count (an address, a publisher or subscription id):
   * a file's earlier tests may leave notifications retrying for the whole retry window.
   */
  readonly concerning?: string;
  readonly timeoutMs?: number;
}

/** The queues an event source polls; the dead-letter queue only keeps what was given up on. */
const POLLED_QUEUES = ['fan-out', 'delivery', 'cleanup'] as const;

export async function waitForQueueIdle(options: QueueIdleOptions = {}): Promise<void> {
  const deliveryQueueUrl = process.env.DELIVERY_QUEUE_URL;
  const queueUrl = options.queueUrl ?? (deliveryQueueUrl ? new URL(deliveryQueueUrl).origin : undefined);
  if (!queueUrl) throw new Error('waitForQueueIdle: no queue URL (DELIVERY_QUEUE_URL is not set)');
  await vi.waitFor(
    async () => {
      const busy = await busyQueues(queueUrl, options.concerning);
      if (busy.length > 0) throw new Error(`queues still busy: ${busy.join(', ')}`);
    },
    { timeout: options.timeoutMs ?? 15_000, interval: 20 },
  );
}

async function busyQueues(queueUrl: string, concerning: string | undefined): Promise<string[]> {
  const counts = await Promise.all(
    POLLED_QUEUES.map(async (name) => {
      const response = await fetch(`${queueUrl}/queues/${name}/messages`);
      if (!response.ok) throw new Error(`GET ${name} messages answered ${response.status}`);
      const { messages } = (await response.json()) as { messages: { body: string }[] };
      const relevant =
        concerning === undefined ? messages : messages.filter((m) => m.body.includes(concerning));
      return { name, count: relevant.length };
    }),
  );
  return counts.filter(({ count }) => count > 0).map(({ name, count }) => `${name} (${count})`);
}
