/**
 * The delivery cursor's lease commits ahead (docs/delivery.md, "Ordering cursors"): the Deliverer
 * against DynamoDB Local through a client of its own whose requests are counted, consumers on
 * 127.0.0.1. A 2xx writes nothing; a failed attempt puts the cursor back; a crash mid-POST is
 * resent by the same message's retry while another message of the same event is superseded; an
 * attempt of this process that waits for a lease has it freed at its holder's 2xx, and one that
 * comes after the 2xx takes the lease over.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { expect, it } from 'vitest';
import { config } from '../../lib/config';
import { Deliverer } from '../../lib/delivery/deliverer';
import { createNetworkPolicy } from '../../lib/delivery/network-policy';
import type { NotificationEvent } from '../../lib/domain/event';
import { parseTime } from '../../lib/domain/event';
import type { DeliveryAttempt } from '../../lib/domain/model';
import type { DeliveryCursorStore } from '../../lib/domain/ports';
import { subscriptionStore } from '../../lib/services';
import { DynamoDeliveryCursors } from '../../lib/store/delivery-cursors';
import { documentClient } from '../../lib/store/dynamo-client';
import { DynamoTable } from '../../lib/store/dynamo-table';
import { keys } from '../../lib/store/keys';
import { type Reply, trackConsumers } from '../support/consumer';
import { queuedNotification } from '../support/notifications';
import { eventAt, LOCK_STATE } from './api';

const consumer = trackConsumers();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TIMEOUT_MS = 500;
/** Past the end of a lease: the POST's time-out and the deliverer's margin of a second. */
const LEASE_MS = TIMEOUT_MS + 1100;

/** The delivery cursors over a DynamoDB client of their own, with the requests it made. */
function countedCursors() {
  const requests: string[] = [];
  const client = new DynamoDBClient({});
  client.middlewareStack.add(
    (next, context) => async (args) => {
      requests.push(String(context.commandName).replace(/Command$/, ''));
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
  const document = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  const table = new DynamoTable(document, config().tableName);
  return { cursors: new DynamoDeliveryCursors(table), table, requests };
}

/** Cursors whose leases are answered 800 ms after they were written. */
class SlowToAnswer extends DynamoDeliveryCursors {
  override async acquireDeliveryLeases(attempts: readonly DeliveryAttempt[]) {
    const outcomes = await super.acquireDeliveryLeases(attempts);
    await sleep(800);
    return outcomes;
  }
}

/** The cursors of a process that crashed once its leases were taken: it writes nothing more. */
class CrashedAfterLease extends DynamoDeliveryCursors {
  override releaseDeliveryLease(): Promise<void> {
    return new Promise(() => {});
  }
  override completeDeliveries(): Promise<PromiseSettledResult<void>[]> {
    return new Promise(() => {});
  }
}

function delivererOver(cursors: DeliveryCursorStore): Deliverer {
  return new Deliverer(subscriptionStore(), cursors, createNetworkPolicy({ mode: 'allow-private' }), {
    timeoutMs: TIMEOUT_MS,
    userAgent: 'test/1',
    retryWindowMs: 3_600_000,
    backoff: { baseMs: 100, maxMs: 1000 },
  });
}

/** A stored subscription of a consumer with `replies` to an address of its own, and its notifications. */
async function subscribed(replies?: Reply[]) {
  const endpoint = await consumer(replies);
  const resourceAddress = `/c-${randomUUID().slice(0, 8)}/s/n${LOCK_STATE}`;
  const subscription = {
    id: randomUUID(),
    resourceAddress,
    endpointUri: endpoint.url,
    owner: 'anonymous',
    createdAt: new Date().toISOString(),
  };
  await subscriptionStore().createSubscription(subscription);
  /** The notification of an event `secondsAgo` old, queued at `enqueuedAt` (a new message each call). */
  const notification = (value: string, secondsAgo: number, enqueuedAt = new Date()) => {
    const time = new Date(Date.now() - secondsAgo * 1000).toISOString();
    const event = eventAt(resourceAddress, LOCK_STATE, value, time) as NotificationEvent;
    return queuedNotification(
      subscription,
      { publisherId: randomUUID(), resourceAddress, event, acceptedAt: new Date().toISOString() },
      enqueuedAt,
    );
  };
  const ids = () => endpoint.received.map((n) => (n.body as { id: string }).id);
  return { subscription, endpoint, notification, ids };
}

it('a delivered notification writes its cursor once: the lease, nothing after the 2xx', async () => {
  const { cursors, requests } = countedCursors();
  const { notification, subscription, endpoint } = await subscribed();
  const message = notification('LOCKED', 1);
  expect(await delivererOver(cursors).attempt(message, 1)).toMatchObject({ kind: 'delivered' });
  expect(endpoint.received).toHaveLength(1);
  expect(requests).toEqual(['UpdateItem']);
  // What the consumer sees in GET …/deliveries is the lease's write.
  const [status] = (await cursors.listDeliveries(subscription, { limit: 10 })).items;
  expect(status?.delivered).toMatchObject({ id: message.event.id, time: message.event.time });
});

it('events of one pair one after another, in one process: each one write, none waits for the lease before it', async () => {
  const { cursors, requests } = countedCursors();
  const { notification, ids } = await subscribed();
  const deliverer = delivererOver(cursors);
  const events = [notification('FREERUN', 3), notification('HOLDOVER', 2), notification('LOCKED', 1)];
  for (const message of events) {
    expect(await deliverer.attempt(message, 1)).toMatchObject({ kind: 'delivered' });
  }
  expect(ids()).toEqual(events.map((m) => m.event.id));
  expect(requests).toEqual(['UpdateItem', 'UpdateItem', 'UpdateItem']);
  // Another process knows of no 2xx: it waits for the last lease's end.
  const next = notification('FREERUN', 0);
  expect(await delivererOver(cursors).attempt(next, 1)).toMatchObject({ kind: 'retry', failed: false });
});

it('a failed attempt puts the cursor back: an event older than it, newer than the one delivered, still goes', async () => {
  const { cursors } = countedCursors();
  const { notification, subscription, ids } = await subscribed([
    { status: 204 },
    { status: 503 },
    { status: 204 },
  ]);
  const deliverer = delivererOver(cursors);
  const first = notification('FREERUN', 30);
  const newest = notification('LOCKED', 10);
  const between = notification('HOLDOVER', 20);
  expect(await deliverer.attempt(first, 1)).toMatchObject({ kind: 'delivered' });
  await sleep(LEASE_MS);
  expect(await deliverer.attempt(newest, 1)).toMatchObject({ kind: 'retry', failed: true });
  const [afterFailure] = (await cursors.listDeliveries(subscription, { limit: 10 })).items;
  expect(afterFailure).toMatchObject({
    delivered: { id: first.event.id },
    lastFailure: { reason: 'it answered HTTP 503', attempts: 1 },
  });
  expect(await deliverer.attempt(between, 1)).toMatchObject({ kind: 'delivered' });
  // And the failed one's retry, newer still, goes after it (once its lease has run out).
  await sleep(LEASE_MS);
  expect(await deliverer.attempt(newest, 2)).toMatchObject({ kind: 'delivered' });
  expect(ids()).toEqual([first, newest, between, newest].map((m) => m.event.id));
});

it('a crash mid-POST: the lease runs out, the same message is sent again; another message of the event is superseded', async () => {
  const { cursors, table, requests } = countedCursors();
  const { notification, ids, endpoint } = await subscribed(['hang', { status: 204 }]);
  const message = notification('LOCKED', 1);
  void delivererOver(new CrashedAfterLease(table)).attempt(message, 1);
  await endpoint.waitFor(1);

  const restarted = delivererOver(cursors);
  // The same event queued again (a fan-out's rerun: a new message) is a repeat, lease or not.
  const rerun = { ...message, enqueuedAt: new Date(Date.parse(message.enqueuedAt) + 1000).toISOString() };
  expect(await restarted.attempt(rerun, 1)).toEqual({ kind: 'dropped', why: 'superseded', failed: false });
  await sleep(LEASE_MS);
  requests.length = 0;
  // The crashed message comes back (SQS's visibility time-out): it takes its own lease again.
  expect(await restarted.attempt(message, 2)).toMatchObject({ kind: 'delivered' });
  expect(ids()).toEqual([message.event.id, message.event.id]);
  // Refused (its cursor is at its event already), then taken again by its owner.
  expect(requests).toEqual(['UpdateItem', 'UpdateItem']);
  expect(await restarted.attempt(rerun, 1)).toEqual({ kind: 'dropped', why: 'superseded', failed: false });
});

it('an attempt of this process that waits for a lease has it freed at its holder’s 2xx; one in another process waits for the lease’s end', async () => {
  const { cursors, requests } = countedCursors();
  const { notification, ids, endpoint } = await subscribed([{ status: 204, delayMs: 200 }]);
  const deliverer = delivererOver(cursors);
  const older = notification('FREERUN', 2);
  const newer = notification('LOCKED', 1);
  const holding = deliverer.attempt(older, 1);
  await endpoint.waitFor(1);
  expect(await deliverer.attempt(newer, 1)).toMatchObject({ kind: 'retry', failed: false });
  expect(await holding).toMatchObject({ kind: 'delivered' });
  // Freed at once (the lease had a second and a half left): the waiter goes at its next try.
  expect(await deliverer.attempt(newer, 1)).toMatchObject({ kind: 'delivered' });
  expect(requests).toEqual(['UpdateItem', 'UpdateItem', 'BatchExecuteStatement', 'UpdateItem']);

  // Another process's waiter: the holder does not know of it, and its lease runs to its end.
  await sleep(LEASE_MS);
  const other = delivererOver(cursors);
  const newest = notification('HOLDOVER', 0);
  const later = { ...notification('HOLDOVER', 0), event: { ...newest.event, id: randomUUID() } };
  const holdingAgain = deliverer.attempt(newest, 1);
  await endpoint.waitFor(3);
  expect(await other.attempt(later, 1)).toMatchObject({ kind: 'retry', failed: false });
  expect(await holdingAgain).toMatchObject({ kind: 'delivered' });
  expect(await other.attempt(later, 1)).toMatchObject({ kind: 'retry', failed: false });
  await sleep(LEASE_MS);
  expect(await other.attempt(later, 1)).toMatchObject({ kind: 'delivered' });
  expect(ids()).toEqual([older, newer, newest, later].map((m) => m.event.id));
});

it('never starts a POST that could outlive its lease: released, tried again, nothing sent', async () => {
  const { cursors, table } = countedCursors();
  const { notification, ids } = await subscribed();
  // The lease's answer took 800 ms of its 1 s margin: 200 ms would be left for the POST, under
  // half its time-out.
  const slow = delivererOver(new SlowToAnswer(table));
  const message = notification('LOCKED', 1);
  expect(await slow.attempt(message, 1)).toMatchObject({ kind: 'retry', failed: false });
  expect(ids()).toEqual([]);
  // The lease is free and the cursor back where it was: the next try sends it.
  expect(await delivererOver(cursors).attempt(message, 1)).toMatchObject({ kind: 'delivered' });
  expect(ids()).toEqual([message.event.id]);
});

it('a cursor the release before left mid-attempt (its lease run out, its cursor not moved) is taken, and put back after a failure', async () => {
  const { cursors } = countedCursors();
  const { notification, subscription, ids } = await subscribed([{ status: 503 }, { status: 204 }]);
  const delivered = notification('FREERUN', 20);
  const inFlight = notification('LOCKED', 10);
  const pair = keys.deliveryCursor(subscription.id, subscription.resourceAddress);
  // The item as release 0.2.0 left it when its process died mid-attempt: the event delivered
  // before, and a lease (with a random owner) that ran out.
  await documentClient().send(
    new PutCommand({
      TableName: config().tableName,
      Item: {
        ...pair,
        deliveredTimeKey: parseTime(delivered.event.time),
        deliveredEvent: `${delivered.event.source}#${delivered.event.id}`,
        lastDelivered: { ...delivered.event, deliveredAt: Date.now() },
        leaseOwner: 'a 0.2.0 attempt',
        leaseUntil: Date.now() - 1,
      },
    }),
  );
  const deliverer = delivererOver(cursors);
  expect(await deliverer.attempt(inFlight, 1)).toMatchObject({ kind: 'retry', failed: true });
  const [status] = (await cursors.listDeliveries(subscription, { limit: 10 })).items;
  expect(status).toMatchObject({ delivered: { id: delivered.event.id }, lastFailure: { attempts: 1 } });
  // Back where the release before left it: an event between the two still goes.
  expect(await deliverer.attempt(notification('HOLDOVER', 15), 1)).toMatchObject({ kind: 'delivered' });
  expect(ids()).toHaveLength(2);
});
