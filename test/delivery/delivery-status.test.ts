/**
 * What a consumer can ask the service about its deliveries, through the route handlers, against
 * DynamoDB Local, with queued delivery in-process (the local queue, the real fan-out and deliver
 * handlers) and consumers as real HTTP endpoints on 127.0.0.1: per address, the newest delivered
 * event and the last failure; its dead letters; their redrive, never older after newer.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { config } from '../../lib/config';
import { documentClient } from '../../lib/store/dynamo-client';
import { api, expectJson } from '../support/api';
import { trackConsumers } from '../support/consumer';
import { waitForQueueIdle } from '../support/queue-idle';
import { useQueuedDelivery } from '../support/queued-delivery';
import {
  CLOCK_CLASS,
  eventAt,
  freshNode,
  LOCK_STATE,
  publishAccepted,
  registerPublisher,
  SYNC_STATE,
  subscribe,
  unsubscribe,
} from './api';

useQueuedDelivery({ retryWindowSeconds: 30, backoffBaseMs: 50, backoffMaxMs: 400 });
const consumer = trackConsumers();

interface DeliveryStatus {
  ResourceAddress: string;
  LastDelivered?: { Source: string; Id: string; Time: string; DeliveredAt: string; LatencyMs?: number };
  LastFailure?: { FailedAt: string; Reason: string; Attempts: number };
}
interface DeadLetter {
  ResourceAddress: string;
  Event: { id: string };
  Reason: string;
  Attempts: number;
}
type EventRef = { ResourceAddress: string; Source: string; Id: string; Time: string };
interface RedriveOutcome {
  Redriven: EventRef[];
  Dropped: (EventRef & { Reason: string })[];
  More: boolean;
}

const deliveries = async (id: string, query = '') =>
  expectJson<DeliveryStatus[]>(await api.listDeliveries(id, query), 200);
const deadLetters = async (id: string) => expectJson<DeadLetter[]>(await api.listDeadLetters(id), 200);
const redrive = async (id: string) => expectJson<RedriveOutcome>(await api.redriveDeadLetters(id), 200);
const ref = (address: string, event: { source: string; id: string; time: string }) => ({
  ResourceAddress: address,
  Source: event.source,
  Id: event.id,
  Time: event.time,
});
/** A time `seconds` from now, so that a publisher's events are in order. */
const at = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

async function publisher(node = freshNode(), source = LOCK_STATE) {
  const address = `${node}${source}`;
  return { address, id: await registerPublisher(address), node };
}

/** The items the table keeps in a subscription's partition under `prefix`. */
async function itemsOf(subscriptionId: string, prefix: string) {
  const { Items = [] } = await documentClient().send(
    new QueryCommand({
      TableName: config().tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `SUB#${subscriptionId}`, ':prefix': prefix },
      ConsistentRead: true,
    }),
  );
  return Items;
}

describe('GET /subscriptions/{id}/deliveries', () => {
  it("shows per address the newest delivered event with its latency, and a failing consumer's last failure", async () => {
    const node = freshNode();
    const lock = await publisher(node, LOCK_STATE);
    const clock = await publisher(node, CLOCK_CLASS);
    const flaky = await consumer([{ status: 503 }, { status: 503 }, { status: 204 }]);
    const id = await subscribe(node, flaky.url);
    expect(await deliveries(id)).toEqual([]);

    const event = eventAt(lock.address, LOCK_STATE, 'HOLDOVER');
    const accepted = Date.now();
    await publishAccepted(lock.id, event);
    await flaky.waitFor(3);
    await waitForQueueIdle({ concerning: lock.address });
    const [status] = await deliveries(id);
    expect(status).toMatchObject({
      ResourceAddress: lock.address,
      LastDelivered: { Source: event.source, Id: event.id, Time: event.time },
      LastFailure: { Reason: 'it answered HTTP 503', Attempts: 2 },
    });
    const deliveredAt = Date.parse(status?.LastDelivered?.DeliveredAt ?? '');
    expect(deliveredAt).toBeGreaterThanOrEqual(accepted);
    expect(status?.LastDelivered?.LatencyMs).toBeLessThanOrEqual(Date.now() - accepted);
    expect(Date.parse(status?.LastFailure?.FailedAt ?? '')).toBeLessThanOrEqual(deliveredAt);

    // A second address, paged like the other lists.
    const sync = eventAt(clock.address, CLOCK_CLASS, 6);
    await publishAccepted(clock.id, sync);
    await flaky.waitFor(4);
    await waitForQueueIdle({ concerning: clock.address });
    const all = await deliveries(id);
    expect(all.map((s) => s.ResourceAddress).sort()).toEqual([clock.address, lock.address].sort());
    const first = await api.listDeliveries(id, '?limit=1');
    expect(first.body).toHaveLength(1);
    const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))?.[1] ?? '';
    expect(next).toContain(`/subscriptions/${id}/deliveries?`);
    const second = await api.listDeliveries(id, new URL(next).search);
    expect([...(first.body as DeliveryStatus[]), ...(second.body as DeliveryStatus[])]).toEqual(all);
  });

  it('answers 404 for a subscription that does not exist', async () => {
    expect((await api.listDeliveries('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await api.listDeadLetters('no-such-id')).status).toBe(404);
    expect((await api.redriveDeadLetters('no-such-id')).status).toBe(404);
  });
});

describe('dead letters kept per subscription', () => {
  it('lists a dead letter with its reason, event and attempts; redrive delivers it and empties the list', async () => {
    const pub = await publisher();
    const fixed = await consumer([{ status: 400 }, { status: 204 }]);
    const id = await subscribe(pub.address, fixed.url);
    const event = eventAt(pub.address, LOCK_STATE, 'FREERUN');
    await publishAccepted(pub.id, event);
    const [letter] = await vi.waitFor(async () => {
      const letters = await deadLetters(id);
      expect(letters).toHaveLength(1);
      return letters;
    });
    expect(letter).toMatchObject({
      ResourceAddress: pub.address,
      Event: event,
      Reason: 'it answered HTTP 400, which is not retried',
      Attempts: 1,
    });
    const [item] = await itemsOf(id, 'DEADLETTER#');
    // Kept 14 days, as long as the dead-letter queue keeps a message.
    expect(item?.expiresAt).toBe(Math.ceil(Date.parse(String(item?.deadLetteredAt)) / 1000) + 14 * 24 * 3600);
    expect((await deliveries(id))[0]?.LastFailure).toMatchObject({ Reason: letter?.Reason, Attempts: 1 });

    expect(await redrive(id)).toEqual({ Redriven: [ref(pub.address, event)], Dropped: [], More: false });
    await fixed.waitFor(2);
    await waitForQueueIdle({ concerning: pub.address });
    expect(fixed.received.map((r) => r.body)).toEqual([event, event]);
    expect(await deadLetters(id)).toEqual([]);
    expect((await deliveries(id))[0]?.LastDelivered).toMatchObject({ Id: event.id });
    expect(await redrive(id)).toEqual({ Redriven: [], Dropped: [], More: false });
  });

  it('never redrives an older event after a newer one: superseded letters are reported as dropped, not sent', async () => {
    const pub = await publisher();
    const refusing = await consumer([{ status: 400 }, { status: 400 }, { status: 204 }]);
    const id = await subscribe(pub.address, refusing.url);
    const older = eventAt(pub.address, LOCK_STATE, 'HOLDOVER', at(0));
    const newer = eventAt(pub.address, LOCK_STATE, 'FREERUN', at(1));
    await publishAccepted(pub.id, older);
    await vi.waitFor(async () => expect(await deadLetters(id)).toHaveLength(1));
    await publishAccepted(pub.id, newer);
    await vi.waitFor(async () => expect(await deadLetters(id)).toHaveLength(2));

    // Two letters for one address: only the newest goes out.
    expect(await redrive(id)).toEqual({
      Redriven: [ref(pub.address, newer)],
      Dropped: [
        { ...ref(pub.address, older), Reason: 'a newer dead letter for the address is redriven instead' },
      ],
      More: false,
    });
    await refusing.waitFor(3);
    await waitForQueueIdle({ concerning: pub.address });
    expect(refusing.received.map((r) => r.body)).toEqual([older, newer, newer]);

    // A letter whose address has had a newer event delivered since is dropped too.
    const flaky = await consumer([{ status: 400 }, { status: 204 }]);
    const sync = await publisher(freshNode(), SYNC_STATE);
    const other = await subscribe(sync.address, flaky.url);
    const lost = eventAt(sync.address, SYNC_STATE, 'HOLDOVER', at(0));
    const later = eventAt(sync.address, SYNC_STATE, 'LOCKED', at(1));
    await publishAccepted(sync.id, lost);
    await vi.waitFor(async () => expect(await deadLetters(other)).toHaveLength(1));
    await publishAccepted(sync.id, later);
    await flaky.waitFor(2);
    await waitForQueueIdle({ concerning: sync.address });
    expect(await redrive(other)).toEqual({
      Redriven: [],
      Dropped: [
        {
          ...ref(sync.address, lost),
          Reason: 'the consumer has received this event or a newer one for the address since',
        },
      ],
      More: false,
    });
    await waitForQueueIdle({ concerning: sync.address });
    expect(flaky.received.map((r) => r.body)).toEqual([lost, later]);
    expect(await deadLetters(other)).toEqual([]);
  });

  it("goes with its subscription: deleted, or made again with the same id, it shows none of the old one's", async () => {
    const pub = await publisher();
    const refusing = await consumer([{ status: 400 }, { status: 204 }]);
    const id = await subscribe(pub.address, refusing.url);
    const event = eventAt(pub.address, LOCK_STATE, 'FREERUN');
    await publishAccepted(pub.id, event);
    await vi.waitFor(async () => expect(await deadLetters(id)).toHaveLength(1));
    await unsubscribe(id);
    expect(await itemsOf(id, 'DEADLETTER#')).toEqual([]);

    // The same endpoint and address make the same id again: a new subscription, with nothing of the old.
    expect(await subscribe(pub.address, refusing.url)).toBe(id);
    expect(await deadLetters(id)).toEqual([]);
    const [status] = await deliveries(id);
    expect(status?.LastDelivered?.Id).toBe(event.id); // the initial notification
    expect(status?.LastFailure).toBeUndefined();
  });

  // Last in the file: delete-all retires every subscription of the (local, anonymous) owner.
  it("goes with its subscriptions when all are deleted, by delete-all's background removal", async () => {
    const pub = await publisher();
    const refusing = await consumer([{ status: 400 }]);
    const id = await subscribe(pub.address, refusing.url);
    await publishAccepted(pub.id, eventAt(pub.address, LOCK_STATE, 'FREERUN'));
    await vi.waitFor(async () => expect(await deadLetters(id)).toHaveLength(1));
    expect((await api.deleteAllSubscriptions()).status).toBe(204);
    expect((await api.listDeadLetters(id)).status).toBe(404);
    await waitForQueueIdle();
    expect(await itemsOf(id, 'DEADLETTER#')).toEqual([]);
  });
});
