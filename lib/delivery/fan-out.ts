import type { DeliveryStore } from '../domain/model';
import type { QueuePort } from '../queue/queue-port';
import { deliveryMessage, type FanOutMessage } from './messages';

/**
 * Turns one accepted event into one delivery message per covering subscription: one query per
 * ancestor of the address (paged), and each page enqueued while the next is read. A fan-out that
 * fails part-way is run again whole; the repeats it enqueues are dropped at delivery by the
 * ordering cursor (same event, already delivered) — at-least-once, never twice in a row unseen.
 */
export class FanOut {
  constructor(
    private readonly store: DeliveryStore,
    private readonly queue: QueuePort,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Returns how many deliveries were enqueued. */
  async run(message: FanOutMessage): Promise<number> {
    const now = new Date(this.clock());
    const sends: Promise<void>[] = [];
    let count = 0;
    let readError: unknown;
    try {
      for await (const page of this.store.subscriptionsCovering(message.resourceAddress)) {
        count += page.length;
        const messages = page.map((subscription) => ({
          body: JSON.stringify(deliveryMessage(subscription, message, now)),
        }));
        sends.push(this.queue.send('delivery', messages));
      }
    } catch (error) {
      readError = error;
    }
    // Every send settles before this returns or throws, so none is left running unobserved.
    const results = await Promise.allSettled(sends);
    const failure = results.find((result) => result.status === 'rejected');
    if (readError !== undefined) throw readError;
    if (failure) throw failure.reason;
    return count;
  }
}
