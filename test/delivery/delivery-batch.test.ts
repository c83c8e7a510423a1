/**
 * One queue batch whose notifications fare differently: each outcome stays its own. The batch's
 * store work is shared (one read, the leases at once), so this checks that sharing it
 * leaks nothing from one notification to another, and that a hanging consumer holds up no other.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { Deliverer } from '../../lib/delivery/deliverer';
import { DeliveryBatch, type ReceivedMessage } from '../../lib/delivery/delivery-batch';
import { FailedRecordBackoff } from '../../lib/delivery/failed-record-backoff';
import { createNetworkPolicy } from '../../lib/delivery/network-policy';
import type { NotificationEvent } from '../../lib/domain/event';
import { parseTime } from '../../lib/domain/event';
import type { Metrics } from '../../lib/metrics';
import {
  deadLetters,
  deliveryCursors,
  signingSubscriptionStore,
  subscriptionDeliveries,
  subscriptionStore,
} from '../../lib/services';
import { type Consumer, startConsumer } from '../support/consumer';
import { queuedNotification } from '../support/notifications';
import { RecordingQueue } from '../support/recording-queue';
import { eventAt, LOCK_STATE } from './api';

let fast: Consumer;
let failing: Consumer;
let hanging: Consumer;
beforeAll(async () => {
  [fast, failing, hanging] = await Promise.all([
    startConsumer(),
    startConsumer([{ status: 503 }]),
    startConsumer(['hang']),
  ]);
});
afterAll(() => Promise.all([fast.close(), failing.close(), hanging.close()]));

const metrics = { count: () => undefined, deliveryLatency: () => undefined } as unknown as Metrics;

const BACKOFF = { baseMs: 1000, maxMs: 300_000 };

/** A delivery batch on the real stores, sending to 127.0.0.1, its messages recorded by `queue`. */
function deliveryBatch(queue: RecordingQueue): DeliveryBatch {
  const deliverer = new Deliverer(
    signingSubscriptionStore(),
    deliveryCursors(),
    createNetworkPolicy({ mode: 'allow-private' }),
    { timeoutMs: 2000, userAgent: 'test/1', retryWindowMs: 3_600_000, backoff: BACKOFF },
  );
  return new DeliveryBatch(
    deliverer,
    queue,
    deadLetters(),
    new FailedRecordBackoff(queue, 'delivery', BACKOFF),
  );
}

async function subscribed(endpointUri: string, store = true) {
  const subscription = {
    id: randomUUID(),
    resourceAddress: `/c-${randomUUID().slice(0, 8)}/s/n${LOCK_STATE}`,
    endpointUri,
    owner: 'anonymous',
    createdAt: new Date().toISOString(),
  };
  if (store) await subscriptionStore().createSubscription(subscription);
  const event = eventAt(subscription.resourceAddress, LOCK_STATE, 'HOLDOVER') as NotificationEvent;
  const message = queuedNotification(
    subscription,
    {
      publisherId: randomUUID(),
      resourceAddress: subscription.resourceAddress,
      event,
      acceptedAt: new Date().toISOString(),
    },
    new Date(),
  );
  const received: ReceivedMessage = {
    messageId: randomUUID(),
    receiptHandle: randomUUID(),
    body: JSON.stringify(message),
    receiveCount: 1,
  };
  return { subscription, event, message, received };
}

it('delivers, retries, waits and drops within one batch, each notification on its own, and a hanging consumer delays none', async () => {
  const delivered = await Promise.all([subscribed(fast.url), subscribed(fast.url), subscribed(fast.url)]);
  const failed = await subscribed(failing.url);
  const hung = await subscribed(hanging.url);
  const deleted = await subscribed(fast.url, false);
  // Another attempt holds the lease of this one's (subscription, address) cursor.
  const held = await subscribed(fast.url);
  const now = Date.now();
  const [holder] = await deliveryCursors().acquireDeliveryLeases([
    {
      subscriptionId: held.subscription.id,
      resourceAddress: held.subscription.resourceAddress,
      timeKey: parseTime(held.event.time),
      eventKey: 'other#event',
      leaseOwner: randomUUID(),
      now,
      leaseUntil: now + 60_000,
      expiresAt: Math.floor(now / 1000) + 3600,
      delivered: { source: 'other', id: 'event', time: held.event.time, deliveredAt: now },
    },
  ]);
  expect(holder).toEqual({ status: 'fulfilled', value: { kind: 'acquired' } });

  const queue = new RecordingQueue();
  const batch = deliveryBatch(queue);
  const all = [...delivered, failed, hung, deleted, held];
  let settled = false;
  const running = batch.process(
    all.map((x) => x.received),
    metrics,
  );
  running.finally(() => {
    settled = true;
  });
  // While the hanging consumer still holds its POST open, the fast ones are delivered and recorded.
  await fast.waitFor(delivered.length);
  // ...and their cursors completed (a repeat of the event is superseded), the batch still running.
  for (const x of delivered) {
    const again = () =>
      deliveryCursors().acquireDeliveryLeases([
        {
          subscriptionId: x.subscription.id,
          resourceAddress: x.subscription.resourceAddress,
          timeKey: parseTime(x.event.time),
          eventKey: `${x.event.source}#${x.event.id}`,
          leaseOwner: randomUUID(),
          now: Date.now(),
          leaseUntil: Date.now() + 1000,
          expiresAt: Math.floor(Date.now() / 1000) + 3600,
          delivered: { source: x.event.source, id: x.event.id, time: x.event.time, deliveredAt: Date.now() },
        },
      ]);
    await vi.waitFor(
      async () => expect(await again()).toEqual([{ status: 'fulfilled', value: { kind: 'superseded' } }]),
      { timeout: 1500 },
    );
  }
  expect(settled).toBe(false);
  const kept = await running;

  // Kept for a retry: the 503 and the time-out. Nothing else.
  expect(new Set(kept)).toEqual(new Set([failed, hung].map((x) => x.received.messageId)));
  expect(new Set(queue.visibility.map((v) => v.receiptHandle))).toEqual(
    new Set([failed, hung].map((x) => x.received.receiptHandle)),
  );
  // The one waiting for the lease made no attempt: it is sent again as a new message, so that the
  // wait spends none of the queue's receives, and this one is deleted.
  expect(queue.sent.delivery.map((body) => JSON.parse(body))).toEqual([held.message]);
  expect(queue.sent['dead-letter']).toEqual([]);
  // The deleted subscription got nothing, the held one nothing yet, the fast ones one each.
  const paths = fast.received.map((r) => (r.body as { id: string }).id);
  expect(paths.sort()).toEqual(delivered.map((x) => x.event.id).sort());
  expect(failing.received).toHaveLength(1);
});

it('counts the attempts of the earlier messages a waiting notification was sent again from', async () => {
  const refusing = await startConsumer([{ status: 400 }]);
  try {
    const x = await subscribed(refusing.url);
    const queue = new RecordingQueue();
    const batch = deliveryBatch(queue);
    const sentAgain = {
      ...x.received,
      body: JSON.stringify({ ...x.message, attemptsMade: 3 }),
      receiveCount: 2,
    };
    expect(await batch.process([sentAgain], metrics)).toEqual([]);
    const [letter] = queue.sent['dead-letter'].map((body) => JSON.parse(body));
    expect(letter).toMatchObject({ subscriptionId: x.subscription.id, attempts: 5 });
    // What its consumer sees counts them alike: the letter kept with the subscription, and the
    // cursor's last failure.
    const owner = x.subscription.owner;
    const kept = await subscriptionDeliveries().deadLetters(owner, x.subscription.id, { limit: 10 });
    expect(kept.items).toMatchObject([{ reason: letter.reason, attempts: 5 }]);
    const status = await subscriptionDeliveries().deliveries(owner, x.subscription.id, { limit: 10 });
    expect(status.items).toMatchObject([{ lastFailure: { attempts: 5 } }]);
  } finally {
    await refusing.close();
  }
});
