/** One attempt, with a network policy stricter than the local stage's: checked on every attempt. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Deliverer } from '../../lib/delivery/deliverer';
import { createNetworkPolicy, type NetworkPolicyMode } from '../../lib/delivery/network-policy';
import type { NotificationEvent } from '../../lib/domain/event';
import { parseTime } from '../../lib/domain/event';
import { deliveryCursors, signingSubscriptionStore, subscriptionStore } from '../../lib/services';
import { type Consumer, startConsumer } from '../support/consumer';
import { queuedNotification } from '../support/notifications';
import { eventAt, LOCK_STATE } from './api';

let consumer: Consumer;
beforeAll(async () => {
  consumer = await startConsumer();
});
afterAll(() => consumer.close());

/** A subscription of the test consumer to a lock-state address of its own (not stored yet). */
function subscriptionToConsumer() {
  return {
    id: randomUUID(),
    resourceAddress: `/c-${randomUUID().slice(0, 8)}/s/n${LOCK_STATE}`,
    endpointUri: consumer.url,
    owner: 'anonymous',
    createdAt: new Date().toISOString(),
  };
}

/** A Deliverer with the given network policy and the same other settings in every test. */
function delivererWith(mode: NetworkPolicyMode): Deliverer {
  return new Deliverer(signingSubscriptionStore(), deliveryCursors(), createNetworkPolicy({ mode }), {
    timeoutMs: 2000,
    userAgent: 'test/1',
    retryWindowMs: 3_600_000,
    backoff: { baseMs: 1000, maxMs: 300_000 },
  });
}

it('dead-letters at once, without sending, when the endpoint is refused by the network policy', async () => {
  // Subscribed while the endpoint was allowed; the policy is stricter by the time of the attempt.
  const subscription = subscriptionToConsumer();
  const address = subscription.resourceAddress;
  await subscriptionStore().createSubscription(subscription);
  const strict = delivererWith('public-only');
  const event = eventAt(address, LOCK_STATE, 'HOLDOVER') as NotificationEvent;
  const message = queuedNotification(
    subscription,
    { publisherId: randomUUID(), resourceAddress: address, event, acceptedAt: new Date().toISOString() },
    new Date(),
  );
  const result = await strict.attempt(message, 1);
  expect(result).toMatchObject({
    kind: 'dead-letter',
    failed: true,
    letter: { subscriptionId: subscription.id, reason: 'refused by the network policy: loopback address' },
  });
  expect(consumer.received).toEqual([]);
  // The lease was freed: the next event for the pair is not held up.
  const next = queuedNotification(subscription, { ...message, event: { ...event, id: 'next' } }, new Date());
  const allowed = delivererWith('allow-private');
  expect(await allowed.attempt(next, 1)).toMatchObject({ kind: 'delivered' });
});

it('does not send again the event a new subscription got as its initial notification', async () => {
  const subscription = subscriptionToConsumer();
  const address = subscription.resourceAddress;
  const event = eventAt(address, LOCK_STATE, 'LOCKED') as NotificationEvent;
  await subscriptionStore().createSubscription(subscription, {
    resourceAddress: address,
    event,
    timeKey: parseTime(event.time),
  });
  const accepted = {
    publisherId: randomUUID(),
    resourceAddress: address,
    event,
    acceptedAt: new Date().toISOString(),
  };
  const deliverer = delivererWith('allow-private');
  const before = consumer.received.length;
  const result = await deliverer.attempt(queuedNotification(subscription, accepted, new Date()), 1);
  expect(result).toEqual({ kind: 'dropped', why: 'superseded', failed: false });
  expect(consumer.received).toHaveLength(before);
});
