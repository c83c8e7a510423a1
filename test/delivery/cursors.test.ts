/** The ordering cursor of (subscription, address) in DynamoDB Local: lease, watermark, supersession. */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CompletedAttempt, DeliveryAttempt, LeaseOutcome } from '../../lib/domain/model';
import { deliveryCursors as store } from '../../lib/services';

/** One attempt's lease, through the store's batch operation as delivery takes it. */
async function lease(a: DeliveryAttempt): Promise<LeaseOutcome> {
  const [outcome] = await store().acquireDeliveryLeases([a]);
  if (outcome?.status !== 'fulfilled') throw new Error(`no outcome: ${String(outcome?.reason)}`);
  return outcome.value;
}

/** One attempt's completion, through the store's batch operation as delivery records it. */
async function complete(a: CompletedAttempt): Promise<void> {
  const [outcome] = await store().completeDeliveries([a]);
  if (outcome?.status !== 'fulfilled') throw new Error(`not completed: ${String(outcome?.reason)}`);
}

const T1 = '2026-01-01T00:00:01.000000000';
const T2 = '2026-01-01T00:00:02.000000000';

function attempt(key: { subscriptionId: string; resourceAddress: string }, timeKey: string, id = timeKey) {
  const now = Date.now();
  return {
    ...key,
    timeKey,
    eventKey: `/sync/ptp-status/lock-state#${id}`,
    leaseOwner: randomUUID(),
    now,
    leaseUntil: now + 7000,
    expiresAt: Math.floor(now / 1000) + 3600,
    delivered: { source: '/sync/ptp-status/lock-state', id, time: timeKey, deliveredAt: now, latencyMs: 1 },
  } satisfies CompletedAttempt;
}

const freshKey = () => ({
  subscriptionId: randomUUID(),
  resourceAddress: '/c/s/n/sync/ptp-status/lock-state',
});

describe('delivery cursors', () => {
  it('lets one attempt at a time hold the lease of a (subscription, address)', async () => {
    const key = freshKey();
    const first = attempt(key, T1);
    expect(await lease(first)).toEqual({ kind: 'acquired' });
    const second = await lease(attempt(key, T2));
    expect(second).toEqual({ kind: 'leased', leaseUntil: first.leaseUntil });
    await store().releaseDeliveryLease(first);
    expect(await lease(attempt(key, T2))).toEqual({ kind: 'acquired' });
  });

  it('lets exactly one of many concurrent attempts take the lease', async () => {
    const key = freshKey();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => lease(attempt(key, T1, `e${i}`))),
    );
    expect(outcomes.filter((o) => o.kind === 'acquired')).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'leased')).toHaveLength(19);
  });

  it('lets exactly one of many concurrent batch calls take the lease, for a new cursor and for one that exists', async () => {
    // Every call writes at once, and the write's own condition lets only one through, whether the
    // write creates the cursor or updates it.
    for (const prepare of [false, true]) {
      const key = freshKey();
      if (prepare) {
        const earlier = attempt(key, T1, 'earlier');
        await lease(earlier);
        await complete(earlier);
      }
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store().acquireDeliveryLeases([attempt(key, T2, `e${i}`)])),
      );
      const kinds = outcomes.map(([o]) => (o?.status === 'fulfilled' ? o.value.kind : 'rejected'));
      expect(kinds.filter((k) => k === 'acquired')).toHaveLength(1);
      expect(kinds.filter((k) => k === 'leased')).toHaveLength(19);
    }
  });

  it('drops an event older than, or the same as, the one delivered last', async () => {
    const key = freshKey();
    const newer = attempt(key, T2);
    await lease(newer);
    await complete(newer);
    expect(await lease(attempt(key, T1))).toEqual({ kind: 'superseded' });
    expect(await lease(attempt(key, T2))).toEqual({ kind: 'superseded' });
    // Another event with the same time is not older: it goes out.
    expect(await lease(attempt(key, T2, 'other'))).toEqual({ kind: 'acquired' });
  });

  it('takes over a lease that expired (its holder died)', async () => {
    const key = freshKey();
    const dead = { ...attempt(key, T1), leaseUntil: Date.now() - 1 };
    await lease(dead);
    const next = attempt(key, T2);
    expect(await lease(next)).toEqual({ kind: 'acquired' });
    // The late holder completes anyway: the cursor moves forward only, and the new lease stays.
    await complete(dead);
    expect(await lease(attempt(key, T2, 'x'))).toMatchObject({ kind: 'leased' });
    await complete(next);
    expect(await lease(attempt(key, T1, 'y'))).toEqual({ kind: 'superseded' });
  });

  it('keeps cursors apart per subscription and per address', async () => {
    const key = freshKey();
    const held = attempt(key, T1);
    await lease(held);
    expect(await lease(attempt({ ...key, subscriptionId: randomUUID() }, T1))).toEqual({
      kind: 'acquired',
    });
    expect(await lease(attempt({ ...key, resourceAddress: `${key.resourceAddress}-2` }, T1))).toEqual({
      kind: 'acquired',
    });
  });

  it('takes many leases in one call, each judged on its own: new, held, superseded, and a pair named twice', async () => {
    const fresh = freshKey();
    const held = freshKey();
    const holder = attempt(held, T1);
    await lease(holder);
    const delivered = freshKey();
    const newer = attempt(delivered, T2);
    await lease(newer);
    await complete(newer);
    const many = Array.from({ length: 30 }, () => attempt(freshKey(), T1));
    const outcomes = await store().acquireDeliveryLeases([
      attempt(fresh, T1),
      attempt(held, T2),
      attempt(delivered, T1),
      attempt(fresh, T1, 'same-pair-again'),
      ...many,
    ]);
    expect(outcomes.slice(1, 3)).toEqual([
      { status: 'fulfilled', value: { kind: 'leased', leaseUntil: holder.leaseUntil } },
      { status: 'fulfilled', value: { kind: 'superseded' } },
    ]);
    // The pair named twice: exactly one of its two writes takes the lease.
    const twice = [outcomes[0], outcomes[3]].map((o) =>
      o?.status === 'fulfilled' ? o.value.kind : 'rejected',
    );
    expect(twice.sort()).toEqual(['acquired', 'leased']);
    // Many at once: every pair still gets its lease.
    expect(outcomes.slice(4)).toEqual(many.map(() => ({ status: 'fulfilled', value: { kind: 'acquired' } })));
  });

  it('completes many attempts in one call; one whose lease was taken over moves the cursor only forward', async () => {
    const a = freshKey();
    const b = freshKey();
    const first = attempt(a, T1);
    const lateHolder = { ...attempt(b, T1), leaseUntil: Date.now() - 1 };
    await store().acquireDeliveryLeases([first, lateHolder]);
    const takeover = attempt(b, T2);
    expect(await lease(takeover)).toEqual({ kind: 'acquired' });
    const results = await store().completeDeliveries([first, lateHolder]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(await lease(attempt(a, T1))).toEqual({ kind: 'superseded' });
    // The takeover keeps its lease, then records the newer event.
    expect(await lease(attempt(b, T2, 'x'))).toMatchObject({ kind: 'leased' });
    await store().completeDeliveries([takeover]);
    expect(await lease(attempt(b, T1, 'y'))).toEqual({ kind: 'superseded' });
  });
});
