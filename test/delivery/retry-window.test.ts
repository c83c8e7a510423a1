/**
 * The retry window and back-off of one notification, driven by an injected clock and an in-memory
 * store: exact to the millisecond and instant, where a real window would take its full length.
 * The consumer is still a real HTTP endpoint on 127.0.0.1. delivery.test.ts keeps a few of these
 * cases end to end, with a real (short) window.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type AttemptResult, Deliverer } from '../../lib/delivery/deliverer';
import type { DeliveryMessage } from '../../lib/delivery/messages';
import { createNetworkPolicy } from '../../lib/delivery/network-policy';
import { validateEvent } from '../../lib/domain/event';
import type { DeliveryAttempt, LeaseOutcome, Subscription } from '../../lib/domain/model';
import type { DeliveryCursorStore, SubscriptionStore } from '../../lib/domain/ports';
import { deliveryCursors, subscriptionStore } from '../../lib/services';
import { type Reply, startConsumer } from '../support/consumer';
import { lockStateEvent } from '../support/fixtures';
import { queuedNotification } from '../support/notifications';

const WINDOW_MS = 60 * 60 * 1000;
const BACKOFF = { baseMs: 1000, maxMs: 300_000 };
const ENQUEUED_AT = Date.parse('2026-01-01T00:00:00Z');

/** What delivery asks of the stores, in memory: one subscription, leases per cursor that the test can hold. */
class InMemoryDeliveryStore {
  readonly deleted: string[] = [];
  heldUntil: number | undefined;

  constructor(private readonly subscription: Subscription) {}

  async getSubscriptions(ids: readonly string[]) {
    const live = ids.includes(this.subscription.id) && !this.deleted.includes(this.subscription.id);
    return new Map(live ? [[this.subscription.id, this.subscription]] : []);
  }
  async deleteSubscription(id: string) {
    this.deleted.push(id);
    return true;
  }
  async acquireDeliveryLeases(attempts: readonly DeliveryAttempt[]) {
    const outcome: LeaseOutcome =
      this.heldUntil === undefined ? { kind: 'acquired' } : { kind: 'leased', leaseUntil: this.heldUntil };
    return Promise.allSettled(attempts.map(async () => outcome));
  }
  async completeDeliveries(attempts: readonly DeliveryAttempt[]) {
    return Promise.allSettled(attempts.map(async () => undefined));
  }
  async releaseDeliveryLease() {}
}

const consumers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(consumers.splice(0).map((c) => c.close()));
});

/** A consumer answering `replies`, subscribed; a deliverer whose clock the test sets. */
async function setUp(replies: Reply[]) {
  const consumer = await startConsumer(replies);
  consumers.push(consumer);
  const address = '/c1/site-1/node-1/sync/ptp-status/lock-state';
  const subscription: Subscription = {
    id: 'sub-1',
    resourceAddress: address,
    endpointUri: consumer.url,
    owner: 'anonymous',
    createdAt: new Date(ENQUEUED_AT).toISOString(),
  };
  const store = new InMemoryDeliveryStore(subscription);
  const clock = { now: ENQUEUED_AT };
  // The stores' other operations are never called: delivery asks only these of them.
  const subscriptions: SubscriptionStore = Object.assign(
    Object.create(subscriptionStore()) as SubscriptionStore,
    {
      getSubscriptions: (ids: readonly string[]) => store.getSubscriptions(ids),
      deleteSubscription: (id: string) => store.deleteSubscription(id),
    },
  );
  const cursors: DeliveryCursorStore = Object.assign(
    Object.create(deliveryCursors()) as DeliveryCursorStore,
    {
      acquireDeliveryLeases: (attempts: readonly DeliveryAttempt[]) => store.acquireDeliveryLeases(attempts),
      completeDeliveries: (attempts: readonly DeliveryAttempt[]) => store.completeDeliveries(attempts),
      releaseDeliveryLease: () => store.releaseDeliveryLease(),
    },
  );
  const deliverer = new Deliverer(
    subscriptions,
    cursors,
    createNetworkPolicy({ mode: 'allow-private' }),
    { timeoutMs: 2000, userAgent: 'test/1', retryWindowMs: WINDOW_MS, backoff: BACKOFF },
    () => clock.now,
  );
  const { event } = validateEvent(
    lockStateEvent({ node: '/c1/site-1/node-1', time: '2026-01-01T00:00:00Z' }),
  );
  const message: DeliveryMessage = queuedNotification(
    subscription,
    {
      publisherId: 'pub-1',
      resourceAddress: address,
      event,
      acceptedAt: new Date(ENQUEUED_AT).toISOString(),
    },
    new Date(ENQUEUED_AT),
  );
  return { consumer, store, clock, deliverer, message };
}

const retryDelay = (result: AttemptResult) => (result.kind === 'retry' ? result.delayMs : Number.NaN);

describe('retry window and back-off, on an injected clock', () => {
  it('backs off exponentially with equal jitter, capped at the maximum', async () => {
    const { deliverer, message, clock } = await setUp([{ status: 503 }]);
    for (const [attempt, step] of [
      [1, 1000],
      [2, 2000],
      [5, 16_000],
      [12, 300_000],
    ] as const) {
      clock.now = ENQUEUED_AT + 60_000;
      const delay = retryDelay(await deliverer.attempt(message, attempt));
      expect(delay, `attempt ${attempt}`).toBeGreaterThanOrEqual(step / 2);
      expect(delay, `attempt ${attempt}`).toBeLessThanOrEqual(step);
    }
  });

  it('lets the last retry fall at the end of the window, not past it', async () => {
    const { deliverer, message, clock } = await setUp([{ status: 503 }]);
    clock.now = ENQUEUED_AT + WINDOW_MS - 1234;
    expect(await deliverer.attempt(message, 12)).toEqual({ kind: 'retry', delayMs: 1234, failed: true });
  });

  it('dead-letters a failure at the end of the window, saying why and how many attempts', async () => {
    const { deliverer, message, clock, consumer } = await setUp([{ status: 503 }]);
    clock.now = ENQUEUED_AT + WINDOW_MS;
    const result = await deliverer.attempt(message, 17);
    expect(result).toMatchObject({
      kind: 'dead-letter',
      failed: true,
      letter: {
        subscriptionId: 'sub-1',
        attempts: 17,
        reason: 'the retry window of 3600 s ended; last failure: it answered HTTP 503',
        deadLetteredAt: new Date(ENQUEUED_AT + WINDOW_MS).toISOString(),
      },
    });
    expect(consumer.received).toHaveLength(1); // it was still tried once more
  });

  it('retries a failure one millisecond before the end of the window', async () => {
    const { deliverer, message, clock } = await setUp([{ status: 503 }]);
    clock.now = ENQUEUED_AT + WINDOW_MS - 1;
    expect(await deliverer.attempt(message, 17)).toEqual({ kind: 'retry', delayMs: 1, failed: true });
  });

  it('waits for Retry-After instead of the back-off, and dead-letters when it reaches past the window', async () => {
    const { deliverer, message, clock } = await setUp([{ status: 429, headers: { 'Retry-After': '120' } }]);
    clock.now = ENQUEUED_AT + 1000;
    expect(await deliverer.attempt(message, 1)).toEqual({ kind: 'retry', delayMs: 120_000, failed: true });

    clock.now = ENQUEUED_AT + WINDOW_MS - 60_000;
    const late = await deliverer.attempt(message, 9);
    expect(late).toMatchObject({ kind: 'dead-letter', failed: true });
    expect(late.kind === 'dead-letter' && late.letter.reason).toMatch(
      /^the consumer asked to retry after 120 s, past the end of the retry window of 3600 s/,
    );
  });

  it('waits for an earlier attempt holding the lease without sending, until the window ends', async () => {
    const { deliverer, message, clock, store, consumer } = await setUp([{ status: 204 }]);
    clock.now = ENQUEUED_AT + 10_000;
    store.heldUntil = clock.now + 300;
    const waiting = await deliverer.attempt(message, 1);
    expect(waiting).toMatchObject({ kind: 'retry', failed: false });
    expect(retryDelay(waiting)).toBeGreaterThanOrEqual(300);
    expect(retryDelay(waiting)).toBeLessThanOrEqual(300 + BACKOFF.baseMs / 2);

    clock.now = ENQUEUED_AT + WINDOW_MS;
    store.heldUntil = clock.now + 300;
    expect(await deliverer.attempt(message, 40)).toMatchObject({
      kind: 'dead-letter',
      failed: false,
      letter: { reason: expect.stringMatching(/ended while an earlier notification for the address/) },
    });
    expect(consumer.received).toEqual([]);
  });

  it('measures latency from acceptance on the injected clock', async () => {
    const { deliverer, message, clock } = await setUp([{ status: 204 }]);
    clock.now = ENQUEUED_AT + 2500;
    expect(await deliverer.attempt(message, 1)).toEqual({ kind: 'delivered', latencyMs: 2500 });
  });

  it('410 deletes the subscription through the port and retries nothing', async () => {
    const { deliverer, message, store } = await setUp([{ status: 410 }]);
    expect(await deliverer.attempt(message, 1)).toEqual({ kind: 'dropped', why: 'gone', failed: true });
    expect(store.deleted).toEqual(['sub-1']);
  });
});
