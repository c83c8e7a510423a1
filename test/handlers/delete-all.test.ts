import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { Deliverer } from '../../lib/delivery/deliverer';
import type { NotificationEvent } from '../../lib/domain/event';
import type { DeliveryAttempt, Subscription } from '../../lib/domain/model';
import type { DeliveryCursorStore, SubscriptionStore } from '../../lib/domain/ports';
import {
  counters,
  deliveryCursors,
  networkPolicy,
  signingSubscriptionStore,
  subscriptionStore,
} from '../../lib/services';
import { documentClient } from '../../lib/store/dynamo-client';
import { trackConsumers } from '../support/consumer';
import { testTable } from '../support/env';
import { lockStateEvent } from '../support/fixtures';
import { queuedNotification } from '../support/notifications';
import { waitForQueueIdle } from '../support/queue-idle';
import {
  api,
  deliveryQueue,
  expectJson,
  expectNoContent,
  expectProblem,
  expectSubscribed,
  freshNode,
  lockStatePublisher,
  publishAccepted,
  type SubscriptionInfo,
} from './api';

const startConsumer = trackConsumers();

/** Subscription items in the table, retired or not: what the background clean-up must remove. */
async function subscriptionItems(): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new ScanCommand({
        TableName: testTable.tableName,
        FilterExpression: 'sk = :sk',
        ExpressionAttributeValues: { ':sk': 'SUB' },
        ExclusiveStartKey: startKey,
      }),
    );
    count += page.Items?.length ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}

async function subscribeAll(address: string, endpoints: string[]): Promise<SubscriptionInfo[]> {
  const created: SubscriptionInfo[] = [];
  for (const endpoint of endpoints) {
    created.push(
      expectSubscribed(await api.createSubscription({ ResourceAddress: address, EndpointUri: endpoint })),
    );
  }
  return created;
}

/** A promise and the function that resolves it. */
function signal() {
  let resolve = () => {};
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

const cleanedUp = () =>
  vi.waitFor(
    async () => {
      expect(deliveryQueue().idle()).toBe(true);
      expect(await subscriptionItems()).toBe(0);
    },
    { timeout: 20_000 },
  );

describe('DELETE /subscriptions (delete all)', () => {
  it('from the 204 on, none is listed, read, deleted again or counted; the items go in the background', async () => {
    const { address } = await lockStatePublisher({ withState: false });
    const consumer = await startConsumer();
    const endpoints = Array.from({ length: 30 }, (_, i) => `${consumer.url}/${i}`);
    const created = await subscribeAll(address, endpoints);
    const before = await counters().counts();

    expectNoContent(await api.deleteAllSubscriptions());

    expect((await counters().counts()).subscriptions).toBe(before.subscriptions - created.length);
    expect(expectJson(await api.listSubscriptions(), 200)).toEqual([]);
    expect(
      expectJson(await api.listSubscriptions(`?ResourceAddress=${encodeURIComponent(address)}`), 200),
    ).toEqual([]);
    for (const info of created.slice(0, 3)) {
      expectProblem(await api.getSubscription(info.SubscriptionId), 404);
      expectProblem(await api.deleteSubscription(info.SubscriptionId), 404);
    }
    expect((await counters().counts()).subscriptions).toBe(before.subscriptions - created.length);
    await cleanedUp();
    expect((await counters().counts()).subscriptions).toBe(before.subscriptions - created.length);
  });

  it('a principal that subscribes again at once keeps that subscription through the clean-up', async () => {
    const { address } = await lockStatePublisher({ withState: false });
    const consumer = await startConsumer();
    const endpoints = Array.from({ length: 20 }, (_, i) => `${consumer.url}/${i}`);
    const created = await subscribeAll(address, endpoints);
    const again = created[7];

    expectNoContent(await api.deleteAllSubscriptions());
    const [recreated] = await subscribeAll(address, [endpoints[7] ?? '']);

    // The same name-based id, a new subscription: it is live, listed and counted once, and the
    // clean-up (its job queued before the re-subscribe) removes the other 19 items only.
    expect(recreated?.SubscriptionId).toBe(again?.SubscriptionId);
    const counted = (await counters().counts()).subscriptions;
    await vi.waitFor(async () => {
      expect(deliveryQueue().idle()).toBe(true);
      expect(await subscriptionItems()).toBe(1);
    });
    expect(expectJson(await api.listSubscriptions(), 200)).toEqual([recreated]);
    expect(expectJson(await api.getSubscription(recreated?.SubscriptionId ?? ''), 200)).toEqual(recreated);
    expect((await counters().counts()).subscriptions).toBe(counted);
    expectProblem(await api.createSubscription({ ResourceAddress: address, EndpointUri: endpoints[7] }), 409);
    expectNoContent(await api.deleteAllSubscriptions());
    await cleanedUp();
  });

  it('deliveries already queued for the retired subscriptions are dropped, not delivered', async () => {
    const { address, node, publisherId } = await lockStatePublisher({ withState: false });
    const retired = await startConsumer();
    const live = await startConsumer();
    const [old] = await subscribeAll(address, [retired.url]);
    const createdAt = new Map<string, string>();
    const remember = async (info: SubscriptionInfo | undefined) => {
      const stored = await subscriptionStore().getSubscription(info?.SubscriptionId ?? '', 'anonymous');
      createdAt.set(stored?.id ?? '', stored?.createdAt ?? '');
    };
    await remember(old);
    expectNoContent(await api.deleteAllSubscriptions());
    const [fresh] = await subscribeAll(address, [live.url]);
    await remember(fresh);
    const event = lockStateEvent({ node, time: new Date().toISOString() }) as NotificationEvent;
    const accepted = { publisherId, resourceAddress: address, event, acceptedAt: new Date().toISOString() };
    const as = (info: SubscriptionInfo | undefined): Subscription => ({
      id: info?.SubscriptionId ?? '',
      resourceAddress: address,
      endpointUri: info?.EndpointUri ?? '',
      owner: 'anonymous',
      createdAt: createdAt.get(info?.SubscriptionId ?? '') ?? '',
    });

    // As fan-out queued them before the delete-all: the retired one first.
    await deliveryQueue().send('delivery', [
      { body: JSON.stringify(queuedNotification(as(old), accepted, new Date())) },
      { body: JSON.stringify(queuedNotification(as(fresh), accepted, new Date())) },
    ]);

    await live.waitFor(1);
    await waitForQueueIdle();
    expect(retired.received).toEqual([]);
    expect(deliveryQueue().deadLetters()).not.toContainEqual(
      expect.objectContaining({ subscriptionId: old?.SubscriptionId }),
    );
    expectNoContent(await api.deleteAllSubscriptions());
    await cleanedUp();
  });

  it('a delivery queued for a retired subscription is not sent to the new one of the same id', async () => {
    // The race of a consumer that deletes all and subscribes again while an event fans out: the
    // fan-out queued the event for the retired subscription, whose id the new one has again. The
    // attempt takes its lease before the new subscription's transaction and reads the subscription
    // after it; the initial notification already carried the event, so it must not be sent again.
    const { node, address, publisherId } = await lockStatePublisher({ node: freshNode() });
    const consumer = await startConsumer();
    const [old] = await subscribeAll(address, [consumer.url]);
    const retired = await subscriptionStore().getSubscription(old?.SubscriptionId ?? '', 'anonymous');
    expectNoContent(await api.deleteAllSubscriptions());
    const event = lockStateEvent({ node, value: 'HOLDOVER' }) as NotificationEvent;
    await publishAccepted(publisherId, event);
    await waitForQueueIdle();
    const before = consumer.received.length;

    const leased = signal();
    const subscribedAgain = signal();
    const subscriptions = signingSubscriptionStore();
    const cursors = deliveryCursors();
    const racingSubscriptions: SubscriptionStore = Object.assign(
      Object.create(subscriptions) as SubscriptionStore,
      {
        getSubscriptions: async (ids: readonly string[]) => {
          await subscribedAgain.promise;
          return subscriptions.getSubscriptions(ids);
        },
      },
    );
    const racingCursors: DeliveryCursorStore = Object.assign(Object.create(cursors) as DeliveryCursorStore, {
      acquireDeliveryLeases: async (attempts: readonly DeliveryAttempt[]) => {
        const outcomes = await cursors.acquireDeliveryLeases(attempts);
        leased.resolve();
        return outcomes;
      },
    });
    const deliverer = new Deliverer(racingSubscriptions, racingCursors, networkPolicy(), {
      timeoutMs: 2000,
      userAgent: 'test/1',
      retryWindowMs: 3_600_000,
      backoff: { baseMs: 1000, maxMs: 300_000 },
    });
    const accepted = { publisherId, resourceAddress: address, event, acceptedAt: new Date().toISOString() };
    const attempt = deliverer.attempt(queuedNotification(retired as Subscription, accepted, new Date()), 1);
    await leased.promise;
    const [again] = await subscribeAll(address, [consumer.url]);
    subscribedAgain.resolve();

    expect(again?.SubscriptionId).toBe(old?.SubscriptionId);
    expect(await attempt).toEqual({ kind: 'dropped', why: 'subscription deleted', failed: false });
    const values = consumer.received.slice(before).map(({ body }) => (body as { id: string }).id);
    expect(values).toEqual([event.id]); // the initial notification, once
    expectNoContent(await api.deleteAllSubscriptions());
    await cleanedUp();
  });

  it('is 204 when there is nothing to delete, and twice in a row', async () => {
    expectNoContent(await api.deleteAllSubscriptions());
    expectNoContent(await api.deleteAllSubscriptions());
    expect(expectJson(await api.listSubscriptions(), 200)).toEqual([]);
  });
});
