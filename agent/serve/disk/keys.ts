/**
 * The node's data in its Journal: the key layout, in one place (what lib/store/keys.ts is for the
 * region's table). Keys are `<kind>#…`; ids are UUIDs and addresses have no `#`, so every key is
 * unambiguous and a kind's keys are found with one scan of its prefix, in plain string order.
 *
 *   sub#<id>                                    a subscription: its members, its signing secrets sealed
 *   owner#<owner>                               the owner's generation { gen }: delete-all moves it on
 *   pub#<id>                                    a publisher with its current state
 *   cursor#<subscriptionId>#<address>           a delivery cursor (lib/domain/delivery-cursor.ts)
 *   deadletter#<subscriptionId>#<createdAt>#<order>  a dead letter { letter, expiresAt }, in its
 *                                               incarnation's order (lib/domain/dead-letter.ts)
 *   webhookkey#<generation, 6 digits>           a `v1a` key, its private half sealed
 *   queue#…                                     the in-process queue's messages (not these stores')
 *
 * There are no counters and no indexes: the node holds thousands of items at most, so counts and
 * lists by address are scans, and a scan cannot drift from the items it counts.
 */
import type { Page, PageRequest } from '../../../lib/domain/model';
import { inStringOrder, type Journal, type JournalWrite } from './journal';

/** The stores' lists are paged by pageOf, in the domain's terms. */
export type { Page, PageRequest };

export const diskKeys = {
  subscriptions: 'sub#',
  subscription: (id: string) => `sub#${id}`,
  owner: (owner: string) => `owner#${owner}`,
  publishers: 'pub#',
  publisher: (id: string) => `pub#${id}`,
  cursors: 'cursor#',
  cursorsOf: (subscriptionId: string) => `cursor#${subscriptionId}#`,
  cursor: (subscriptionId: string, address: string) => `cursor#${subscriptionId}#${address}`,
  deadLetters: 'deadletter#',
  /** Every dead letter of the subscription id, or those of its incarnation made at `createdAt`. */
  deadLettersOf: (subscriptionId: string, createdAt?: string) =>
    createdAt === undefined ? `deadletter#${subscriptionId}#` : `deadletter#${subscriptionId}#${createdAt}#`,
  webhookKeys: 'webhookkey#',
  webhookKey: (generation: number) => `webhookkey#${String(generation).padStart(6, '0')}`,
};

/**
 * One page of `sorted` (sort key, item) after the position's sort key: at most `limit` items, and
 * `next` only when more follow. `scope` goes into the position too (what it is valid for).
 */
export function pageOf<T>(
  sorted: ReadonlyArray<readonly [string, T]>,
  request: PageRequest,
  scope: Readonly<Record<string, unknown>> = {},
): Page<T> {
  const after = request.after?.after;
  const rest = typeof after === 'string' ? sorted.filter(([key]) => key > after) : sorted;
  const page = rest.slice(0, request.limit);
  const last = page.at(-1);
  return {
    items: page.map(([, item]) => item),
    next: rest.length > page.length && last ? { ...scope, after: last[0] } : undefined,
  };
}

/** In plain string order of the sort keys, as the journal's scans are. */
export function bySortKey<T>(entries: Array<[string, T]>): Array<[string, T]> {
  return entries.sort(([a], [b]) => inStringOrder(a, b));
}

/** The deletes of every key under `prefix`. */
export function deletesUnder(journal: Journal, prefix: string): JournalWrite[] {
  return journal.scan(prefix).map(([key]) => ({ key }));
}

/** How often the items with an expiry are looked through for those past it. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * DynamoDB's TTL on the node: the items under `prefix` whose `expiresAt` (Unix seconds) has passed
 * are deleted at start and then at most once a minute, when the store writes that kind (DynamoDB
 * too deletes expired items some time after, not at once).
 */
export class ExpirySweep {
  private nextSweepAt = 0;

  constructor(
    private readonly journal: Journal,
    private readonly prefix: string,
  ) {
    this.sweepIfDue(Date.now());
  }

  sweepIfDue(now: number): void {
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + SWEEP_INTERVAL_MS;
    const nowSeconds = now / 1000;
    this.journal.commit(
      this.journal
        .scan<{ readonly expiresAt?: number }>(this.prefix)
        .filter(([, item]) => item.expiresAt !== undefined && item.expiresAt < nowSeconds)
        .map(([key]) => ({ key })),
    );
  }
}
