import type { Subscription } from '../domain/model';
import type { DeliveryStore } from '../domain/ports';
import { selfAndAncestors } from '../domain/resource-address';
import type { QueuePort } from '../queue/queue-port';
import { deliveryMessage, type FanOutContinuation, type FanOutMessage, fanOutMessage } from './messages';

export interface FanOutSettings {
  /** Pages read by one invocation before it hands the rest to a continuation message. */
  readonly pagesPerInvocation: number;
  /** Hands over when the invocation has less time than this left (a page read and its sends). */
  readonly reserveMs: number;
  /** Subscriptions per page; undefined: DynamoDB's 1 MB pages (about 4,000 subscriptions). */
  readonly pageSize?: number;
}

type Page = Awaited<ReturnType<DeliveryStore['subscriptionsAt']>>;

const DEFAULTS: FanOutSettings = { pagesPerInvocation: 10, reserveMs: 5000 };

/**
 * Turns one accepted event into one delivery message per covering subscription: one query per
 * ancestor of the address, the first page of every ancestor read at once, and each page enqueued
 * while the next is read. An invocation reads a bounded number of pages, then enqueues a
 * continuation (the ancestor and page key it stopped at) as a new fan-out message, so a million
 * subscribers fan out through many invocations, each well within its time-out. A fan-out that fails
 * part-way is run again whole from where its message starts; the repeats it enqueues are dropped
 * at delivery by the ordering cursor (same event, already delivered) — at-least-once.
 */
export class FanOut {
  private readonly settings: FanOutSettings;

  constructor(
    private readonly store: DeliveryStore,
    private readonly queue: QueuePort,
    settings: Partial<FanOutSettings> = {},
    private readonly clock: () => number = Date.now,
  ) {
    this.settings = { ...DEFAULTS, ...settings };
  }

  /**
   * Returns how many deliveries were enqueued by this invocation. The events of one queue batch
   * pass the same `firstPages`: in a storm they share most ancestors (the site, the cluster), and
   * each ancestor's first page is then read once for all of them.
   */
  async run(
    message: FanOutMessage,
    remainingMs: () => number = () => Number.POSITIVE_INFINITY,
    firstPages: Map<string, Promise<Page>> = new Map(),
  ): Promise<number> {
    const now = new Date(this.clock());
    const ancestors = selfAndAncestors(message.resourceAddress);
    const from = message.continuation;
    const first = from ? Math.max(0, ancestors.indexOf(from.ancestor)) : 0;
    const pending = ancestors.slice(first);
    const limit = this.settings.pageSize;
    // Most ancestors have one page or none: reading their first pages together saves a round trip each.
    const startPages = pending.map((ancestor, i) => {
      if (i === 0 && from?.startKey)
        return this.store.subscriptionsAt(ancestor, { startKey: from.startKey, limit });
      let page = firstPages.get(ancestor);
      if (!page) {
        page = this.store.subscriptionsAt(ancestor, { limit });
        firstPages.set(ancestor, page);
      }
      return page;
    });
    for (const page of startPages) page.catch(() => undefined); // awaited in order below

    const sends: Promise<void>[] = [];
    let count = 0;
    let pages = 0;
    let readError: unknown;
    const enqueue = (subscriptions: Subscription[]) => {
      count += subscriptions.length;
      if (subscriptions.length === 0) return;
      const bodies = subscriptions.map((s) => ({ body: JSON.stringify(deliveryMessage(s, message, now)) }));
      const sent = this.queue.send('delivery', bodies);
      // Awaited below, once every page is read; a send failing before then is not unhandled.
      sent.catch(() => undefined);
      sends.push(sent);
    };
    try {
      outer: for (const [i, ancestor] of pending.entries()) {
        let page = await (startPages[i] as Promise<Page>);
        for (;;) {
          enqueue(page.subscriptions);
          pages += 1;
          const next: FanOutContinuation | undefined = page.next && { ancestor, startKey: page.next };
          const nextAncestor = pending[i + 1];
          const handOver = next ?? (nextAncestor === undefined ? undefined : { ancestor: nextAncestor });
          if (handOver && this.mustHandOver(pages, remainingMs())) {
            sends.push(
              this.queue.send('fan-out', [{ body: JSON.stringify(fanOutMessage(message, handOver)) }]),
            );
            break outer;
          }
          if (!page.next) break;
          page = await this.store.subscriptionsAt(ancestor, { startKey: page.next, limit });
        }
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

  private mustHandOver(pages: number, remainingMs: number): boolean {
    return pages >= this.settings.pagesPerInvocation || remainingMs < this.settings.reserveMs;
  }
}
