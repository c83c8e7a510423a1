import type { Subscription } from '../domain/model';
import type { SubscriptionStore } from '../domain/ports';
import { selfAndAncestors } from '../domain/resource-address';
import type { Metrics } from '../metrics';
import { type QueuePort, SEND_BATCH_SIZE } from '../queue/queue-port';
import {
  type FanOutContinuation,
  type FanOutMessage,
  fanOutMessage,
  PackBuilder,
  type PackEntry,
} from './messages';

export interface FanOutSettings {
  /** Pages read by one invocation before it hands the rest to a continuation message. */
  readonly pagesPerInvocation: number;
  /** Hands over when the invocation has less time than this left (a page read and its sends). */
  readonly reserveMs: number;
  /** Subscriptions per page; undefined: DynamoDB's 1 MB pages (about 4,000 subscriptions). */
  readonly pageSize?: number;
}

type Page = Awaited<ReturnType<SubscriptionStore['subscriptionsAt']>>;

const DEFAULTS: FanOutSettings = { pagesPerInvocation: 10, reserveMs: 5000 };

/**
 * Attempts notifications in the invocation that fanned them out (DeliveryBatch.deliverNow): for
 * each, true once it is done (delivered, dropped, dead-lettered) or on the delivery queue for a
 * later attempt, false when it could not be put there.
 */
export type DeliverNow = (entries: readonly PackEntry[], metrics: Metrics) => Promise<boolean[]>;

/**
 * The delivery packs of one fan-out invocation, filled across its pages and events: a storm's
 * event has a subscriber or two per address, and the ten events of a queue batch then go out as
 * one pack — one message, one request, one place in a deliver invocation's batch — rather than
 * one message per notification. Full packs go at once, ten to a request; the open pack and the
 * full ones short of ten wait only while some run of the invocation is turning pages it has read
 * into notifications (the events' first pages are read at once, so that is one round of reads),
 * and go as soon as every run is waiting on a further page or done. Each run learns the outcome
 * of the requests that carried its notifications, so a failed request fails the events it
 * carried, whose queue retries them (the repeats are dropped by the ordering cursors).
 *
 * With `deliverNow`, a batch whose runs have all ended before any pack went to the queue — the
 * lone event, a storm's batch: fewer than ten packs — is not queued at all: its notifications are
 * attempted here, and only those to be tried again later go to the delivery queue, each by itself
 * (docs/delivery.md, "Delivered where fanned out"). That spares the lone event a queue hop: its
 * send, its receive and its delete, and an invocation.
 */
export class DeliverySends {
  private open = new OpenPack();
  private readonly full: OpenPack[] = [];
  private busy = 0;
  /** Runs begun and not yet ended. */
  private active = 0;
  /** Whether a pack of this batch has gone to the delivery queue: then every other pack goes too. */
  private queued = false;

  constructor(
    private readonly queue: QueuePort,
    private readonly deliverNow?: (entries: readonly PackEntry[]) => Promise<boolean[]>,
  ) {}

  /** A run begins turning its pages into notifications. */
  begin(): void {
    this.active += 1;
    this.hold();
  }

  /** A run has read its last page (or failed): once no run is busy, everything waiting goes. */
  end(): void {
    this.active -= 1;
    this.release();
  }

  /** A run is turning pages into notifications: partial packs and requests wait for it. */
  hold(): void {
    this.busy += 1;
  }

  /** A run waits on a read: once no run is busy, everything waiting goes. */
  release(): void {
    this.busy -= 1;
    if (this.busy > 0) return;
    if (this.open.builder.size > 0) this.closeOpen();
    if (this.deliverNow && this.active === 0 && !this.queued) this.deliverHere(this.full.splice(0));
    else this.sendFirst(this.full.length);
  }

  /** Resolves when every one of `entries` is on the queue; rejects if a request carrying one failed. */
  add(entries: readonly PackEntry[]): Promise<void> {
    const packs = new Set<OpenPack>();
    for (const entry of entries) {
      if (!this.open.add(entry)) {
        this.closeOpen();
        this.open.add(entry);
      }
      packs.add(this.open);
    }
    this.sendFirst(this.full.length - (this.full.length % SEND_BATCH_SIZE));
    return Promise.all([...packs].map((pack) => pack.sent)).then(() => undefined);
  }

  private closeOpen(): void {
    this.full.push(this.open);
    this.open = new OpenPack();
  }

  private sendFirst(count: number): void {
    if (count === 0) return;
    this.queued = true;
    const taken = this.full.splice(0, count);
    this.queue
      .send(
        'delivery',
        taken.map((pack) => ({ body: pack.builder.close() })),
      )
      .then(
        () => {
          for (const pack of taken) pack.resolve();
        },
        (error: unknown) => {
          for (const pack of taken) pack.reject(error);
        },
      );
  }

  /**
   * Attempts the packs' notifications here; a pack fails when one of its own could not be queued
   * for later. Their retry windows count from their events' acceptance, the same in every run of
   * the fan-out message: a run again after a crash mid-POST makes the same notifications, which
   * their ordering leases know as their own and send again (docs/delivery.md, "Repeats").
   */
  private deliverHere(packs: OpenPack[]): void {
    if (packs.length === 0 || !this.deliverNow) return;
    const entries = packs.flatMap((pack) =>
      pack.entries.map((entry) => ({ ...entry, enqueuedAt: new Date(entry.accepted.acceptedAt) })),
    );
    this.deliverNow(entries).then(
      (results) => {
        let at = 0;
        for (const pack of packs) {
          const own = results.slice(at, at + pack.entries.length);
          at += pack.entries.length;
          if (own.every(Boolean)) pack.resolve();
          else pack.reject(new Error('a notification to try again could not be put on the delivery queue'));
        }
      },
      (error: unknown) => {
        for (const pack of packs) pack.reject(error);
      },
    );
  }
}

/** A pack being filled or waiting to be sent, and the outcome of the request that carries it. */
class OpenPack {
  readonly builder = new PackBuilder();
  readonly entries: PackEntry[] = [];
  readonly sent: Promise<void>;
  resolve!: () => void;
  reject!: (reason: unknown) => void;

  constructor() {
    this.sent = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.sent.catch(() => undefined); // its runs observe it
  }

  /** False when the entry does not fit: close this pack and add it to the next. */
  add(entry: PackEntry): boolean {
    if (!this.builder.add(entry)) return false;
    this.entries.push(entry);
    return true;
  }
}

/** What the events of one queue batch share: their ancestors' first pages and the delivery sends. */
export interface FanOutBatch {
  readonly firstPages: Map<string, Promise<Page>>;
  readonly deliveries: DeliverySends;
}

/**
 * Turns one accepted event into one notification per covering subscription, packed into delivery
 * messages with those of the other events of its queue batch (`DeliverySends`): one query per
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
    private readonly store: SubscriptionStore,
    private readonly queue: QueuePort,
    settings: Partial<FanOutSettings> = {},
    private readonly clock: () => number = Date.now,
    /** Attempts a small batch's notifications where they were fanned out (DeliverySends); none: all are queued. */
    private readonly deliverNow?: DeliverNow,
  ) {
    this.settings = { ...DEFAULTS, ...settings };
  }

  /** The state the events of one queue batch share (`run`); `metrics` counts what is delivered here. */
  batch(metrics?: Metrics): FanOutBatch {
    const deliverNow = this.deliverNow;
    return {
      firstPages: new Map(),
      deliveries: new DeliverySends(
        this.queue,
        deliverNow && metrics && ((entries) => deliverNow(entries, metrics)),
      ),
    };
  }

  /**
   * Returns how many deliveries were enqueued by this invocation. The events of one queue batch
   * pass the same `batch()`: in a storm they share most ancestors (the site, the cluster), and
   * each ancestor's first page is then read once for all of them, and their notifications fill
   * the same packs.
   */
  async run(
    message: FanOutMessage,
    remainingMs: () => number = () => Number.POSITIVE_INFINITY,
    { firstPages, deliveries }: FanOutBatch = this.batch(),
  ): Promise<number> {
    // A queued notification's retry window counts from this run: a run again after a fault makes
    // other notifications, and the ones already delivered are dropped as repeats (those delivered
    // here count from the acceptance: DeliverySends).
    const enqueuedAt = new Date(this.clock());
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
      const sent = deliveries.add(
        subscriptions.map((subscription) => ({ subscription, accepted: message, enqueuedAt })),
      );
      // Awaited below, once every page is read; a send failing before then is not unhandled.
      sent.catch(() => undefined);
      sends.push(sent);
    };
    deliveries.begin();
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
          deliveries.release(); // the partial batch need not wait for this read
          try {
            page = await this.store.subscriptionsAt(ancestor, { startKey: page.next, limit });
          } finally {
            deliveries.hold();
          }
        }
      }
    } catch (error) {
      readError = error;
    } finally {
      // Before awaiting the sends: the partial batch holding this run's last messages waits for it.
      deliveries.end();
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
