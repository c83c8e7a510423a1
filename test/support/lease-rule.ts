/**
 * The lease and supersede rule of the delivery cursors, as one table of cases: a cursor in a given
 * state (an event delivered, a lease held, run out or released), an attempt, and what the attempt
 * must be told. Every store of delivery cursors (DynamoDB's, the node's) is held to the same table.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DeliveryAttempt, LeaseOutcome } from '../../lib/domain/model';
import type { DeliveryCursorStore } from '../../lib/domain/ports';

const T1 = '2026-01-01T00:00:01.000000000';
const T2 = '2026-01-01T00:00:02.000000000';
const LEASE_MS = 60_000;

interface CursorState {
  /** The event delivered last: its time and id. */
  readonly delivered?: { readonly time: string; readonly id: string };
  /** A lease held by another attempt, ending this many ms from now (negative: run out). */
  readonly leaseEndsInMs?: number;
  /** The lease holder's event; by default one newer than any attempt's below. */
  readonly holderEvent?: { readonly time: string; readonly id: string };
  /** The holder's attempt failed: it released its lease. */
  readonly released?: true;
}

type Expected = 'acquired' | 'superseded' | 'leased';

/**
 * An attempt's event (`afterHolder`: its process saw the holder's attempt get its 2xx), or
 * `'holder'`: the holder's own message again (its lease owner, its event).
 */
type AttemptOf = { time: string; id: string; afterHolder?: true } | 'holder';

const T0 = '2026-01-01T00:00:00.000000000';
const HOLDER_EVENT = { time: '2026-01-01T00:00:09.000000000', id: 'holder' };

const CASES: [string, CursorState, AttemptOf, Expected][] = [
  ['no cursor yet', {}, { time: T1, id: 'a' }, 'acquired'],
  ['an older event delivered', { delivered: { time: T1, id: 'a' } }, { time: T2, id: 'b' }, 'acquired'],
  ['a newer event delivered', { delivered: { time: T2, id: 'b' } }, { time: T1, id: 'a' }, 'superseded'],
  ['the same event delivered', { delivered: { time: T1, id: 'a' } }, { time: T1, id: 'a' }, 'superseded'],
  [
    'another event of the same time delivered',
    { delivered: { time: T1, id: 'a' } },
    { time: T1, id: 'b' },
    'acquired',
  ],
  ['a live lease, nothing delivered', { leaseEndsInMs: LEASE_MS }, { time: T1, id: 'a' }, 'leased'],
  // Leases commit ahead: one run out counts its event as delivered, so the holder's is older here.
  [
    'a lease run out, nothing delivered',
    { leaseEndsInMs: -1000, holderEvent: { time: T0, id: 'holder' } },
    { time: T1, id: 'a' },
    'acquired',
  ],
  [
    'a live lease and an older event delivered',
    { delivered: { time: T1, id: 'a' }, leaseEndsInMs: LEASE_MS },
    { time: T2, id: 'b' },
    'leased',
  ],
  [
    'a live lease and a newer event delivered: superseded wins',
    { delivered: { time: T2, id: 'b' }, leaseEndsInMs: LEASE_MS },
    { time: T1, id: 'a' },
    'superseded',
  ],
  [
    'a lease run out and the same event delivered',
    { delivered: { time: T1, id: 'a' }, leaseEndsInMs: -1000 },
    { time: T1, id: 'a' },
    'superseded',
  ],
  [
    'a lease run out for a newer event: its 2xx wrote nothing, it counts as delivered',
    { delivered: { time: T1, id: 'a' }, leaseEndsInMs: -1000 },
    { time: T2, id: 'b' },
    'superseded',
  ],
  [
    'a live lease for this very event, from another message: superseded',
    { delivered: { time: T1, id: 'a' }, leaseEndsInMs: LEASE_MS, holderEvent: { time: T2, id: 'b' } },
    { time: T2, id: 'b' },
    'superseded',
  ],
  [
    'a lease released by its failed attempt: what it replaced is back',
    { delivered: { time: T1, id: 'a' }, leaseEndsInMs: LEASE_MS, released: true },
    { time: T2, id: 'b' },
    'acquired',
  ],
  [
    'a lease released by its failed attempt, the event delivered before it again',
    { delivered: { time: T1, id: 'a' }, leaseEndsInMs: LEASE_MS, released: true },
    { time: T1, id: 'a' },
    'superseded',
  ],
  [
    'a lease released by its failed attempt, nothing delivered before it',
    { leaseEndsInMs: LEASE_MS, released: true },
    { time: T1, id: 'a' },
    'acquired',
  ],
  ['its own live lease (a lost answer retried)', { leaseEndsInMs: LEASE_MS }, 'holder', 'acquired'],
  ['its own lease run out (a crash mid-POST)', { leaseEndsInMs: -1000 }, 'holder', 'acquired'],
  [
    'its own lease run out, over an older event delivered',
    { delivered: { time: T1, id: 'a' }, leaseEndsInMs: -1000 },
    'holder',
    'acquired',
  ],
  [
    'a live lease its process saw end in a 2xx, for a newer event: taken over',
    { delivered: { time: T1, id: 'a' }, leaseEndsInMs: LEASE_MS, holderEvent: { time: T2, id: 'b' } },
    { time: '2026-01-01T00:00:03.000000000', id: 'c', afterHolder: true },
    'acquired',
  ],
  [
    'a live lease its process saw end in a 2xx, for an older event: superseded (it was delivered)',
    { delivered: { time: T1, id: 'a' }, leaseEndsInMs: LEASE_MS, holderEvent: { time: T2, id: 'b' } },
    { time: T1, id: 'c', afterHolder: true },
    'superseded',
  ],
];

const key = () => ({ subscriptionId: randomUUID(), resourceAddress: '/c/s/n/sync/ptp-status/lock-state' });

function attempt(
  pair: { subscriptionId: string; resourceAddress: string },
  event: { time: string; id: string },
  leaseMs = 7000,
): DeliveryAttempt {
  const now = Date.now();
  return {
    ...pair,
    timeKey: event.time,
    eventKey: `/sync/ptp-status/lock-state#${event.id}`,
    leaseOwner: randomUUID(),
    now,
    leaseUntil: now + leaseMs,
    expiresAt: Math.floor(now / 1000) + 3600,
    delivered: { source: '/sync/ptp-status/lock-state', id: event.id, time: event.time, deliveredAt: now },
  };
}

async function lease(cursors: DeliveryCursorStore, a: DeliveryAttempt): Promise<LeaseOutcome> {
  const [outcome] = await cursors.acquireDeliveryLeases([a]);
  if (outcome?.status !== 'fulfilled') throw new Error(`no outcome: ${String(outcome?.reason)}`);
  return outcome.value;
}

/** Brings a fresh cursor into `state` through the store's own operations; the holder, if any. */
async function cursorIn(cursors: DeliveryCursorStore, state: CursorState) {
  const pair = key();
  if (state.delivered) {
    const delivery = attempt(pair, state.delivered);
    expect(await lease(cursors, delivery)).toEqual({ kind: 'acquired' });
    const { time, id } = state.delivered;
    const delivered = { source: '/sync/ptp-status/lock-state', id, time, deliveredAt: Date.now() };
    await cursors.completeDeliveries([{ ...delivery, delivered }]);
  }
  let holder: DeliveryAttempt | undefined;
  if (state.leaseEndsInMs !== undefined) {
    // Another attempt (its lease is never completed).
    holder = attempt(pair, state.holderEvent ?? HOLDER_EVENT, Math.max(state.leaseEndsInMs, 1));
    expect(await lease(cursors, holder)).toEqual({ kind: 'acquired' });
    // A lease run out: what a holder that died, or got its 2xx, leaves behind.
    if (state.leaseEndsInMs < 0) await new Promise((resolve) => setTimeout(resolve, 5));
    if (state.released) {
      await cursors.releaseDeliveryLease(holder, { at: Date.now(), reason: 'HTTP 503', attempts: 1 });
    }
  }
  return { pair, holder };
}

/** Registers the table's cases against the store `cursors()` gives (called inside each test). */
export function leaseRuleCases(cursors: () => DeliveryCursorStore): void {
  describe('the lease and supersede rule of delivery cursors', () => {
    it.each(CASES)('%s', async (_name, state, event, expected) => {
      const { pair, holder } = await cursorIn(cursors(), state);
      const again =
        event === 'holder' && holder
          ? { ...holder, now: Date.now(), leaseUntil: Date.now() + 7000 }
          : undefined;
      const other = attempt(pair, event === 'holder' ? HOLDER_EVENT : event);
      const outcome = await lease(
        cursors(),
        again ??
          (event !== 'holder' && event.afterHolder ? { ...other, finishedLease: holder?.leaseOwner } : other),
      );
      if (expected === 'leased') {
        expect(outcome).toEqual({ kind: 'leased', leaseUntil: holder?.leaseUntil });
      } else {
        expect(outcome).toEqual({ kind: expected });
      }
    });
  });
}
