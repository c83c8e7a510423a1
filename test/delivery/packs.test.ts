/**
 * Packs: fan-out puts the notifications of an invocation into few delivery messages, and the
 * deliver function runs a pack's notifications at once. Each keeps its own fate: one that must be
 * tried again leaves the pack as a message of its own with its own delay, the others are never sent
 * again, and a consumer that hangs delays none of the pack's other consumers. First through the
 * deliver function's batch alone (every outcome in one pack), then end to end: the publish handler,
 * the local queue with its poller, the real fan-out and deliver handlers, DynamoDB Local and
 * consumers on 127.0.0.1.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { Deliverer } from '../../lib/delivery/deliverer';
import { DeliveryBatch, type ReceivedMessage } from '../../lib/delivery/delivery-batch';
import { FailedRecordBackoff } from '../../lib/delivery/failed-record-backoff';
import { type DeliveryMessage, packDeliveries, parseDeliveryQueueMessage } from '../../lib/delivery/messages';
import { createNetworkPolicy } from '../../lib/delivery/network-policy';
import { parseTime } from '../../lib/domain/event';
import type { AcceptedEvent } from '../../lib/domain/ports';
import type { Metrics } from '../../lib/metrics';
import type { OutgoingMessage, QueueName } from '../../lib/queue/queue-port';
import {
  deadLetters,
  deliveryCursors,
  signingSubscriptionStore,
  subscriptionStore,
} from '../../lib/services';
import { trackConsumers } from '../support/consumer';
import { readNotification } from '../support/notifications';
import { waitForQueueIdle } from '../support/queue-idle';
import { useQueuedDelivery } from '../support/queued-delivery';
import { RecordingQueue } from '../support/recording-queue';
import {
  eventAt,
  freshNode,
  LOCK_STATE,
  publishAccepted,
  registerPublisher,
  subscribe,
  subscriptionStatus,
  unsubscribe,
} from './api';

const TIMEOUT_MS = 4000;
const BACKOFF = { baseMs: 1000, maxMs: 300_000 };
const queue = useQueuedDelivery({ backoffBaseMs: 200, backoffMaxMs: 1000, timeoutMs: TIMEOUT_MS });
const consumer = trackConsumers();
const metrics = { count: () => undefined, deliveryLatency: () => undefined } as unknown as Metrics;

/** A RecordingQueue that also keeps each delivery message's delay, and may refuse the delivery queue. */
class DelayRecordingQueue extends RecordingQueue {
  readonly delays = new Map<string, number | undefined>();
  refuseDeliveries = false;

  override async send(name: QueueName, messages: readonly OutgoingMessage[]): Promise<void> {
    if (name === 'delivery' && this.refuseDeliveries) throw new Error('queue down');
    for (const message of messages) this.delays.set(message.body, message.delayMs);
    await super.send(name, messages);
  }
}

function deliveryBatch(sqs: DelayRecordingQueue, timeoutMs = TIMEOUT_MS) {
  const deliverer = new Deliverer(
    signingSubscriptionStore(),
    deliveryCursors(),
    createNetworkPolicy({ mode: 'allow-private' }),
    {
      timeoutMs,
      userAgent: 'test/1',
      retryWindowMs: 3_600_000,
      backoff: BACKOFF,
    },
  );
  return new DeliveryBatch(deliverer, sqs, deadLetters(), new FailedRecordBackoff(sqs, 'delivery', BACKOFF));
}

/** A stored subscription at its own address, and an accepted event there. */
async function subscribedTo(endpointUri: string, store = true) {
  const resourceAddress = `${freshNode()}${LOCK_STATE}`;
  const subscription = {
    id: randomUUID(),
    resourceAddress,
    endpointUri,
    owner: 'anonymous',
    createdAt: new Date().toISOString(),
  };
  if (store) await subscriptionStore().createSubscription(subscription);
  const accepted: AcceptedEvent = {
    publisherId: randomUUID(),
    resourceAddress,
    event: eventAt(resourceAddress, LOCK_STATE, 'HOLDOVER') as AcceptedEvent['event'],
    acceptedAt: new Date().toISOString(),
  };
  return { subscription, accepted };
}

function packOf(entries: Awaited<ReturnType<typeof subscribedTo>>[]): ReceivedMessage {
  const enqueuedAt = new Date();
  const bodies = packDeliveries(entries.map((entry) => ({ ...entry, enqueuedAt })));
  expect(bodies).toHaveLength(1);
  return { messageId: randomUUID(), receiptHandle: randomUUID(), body: bodies[0] as string, receiveCount: 1 };
}

describe('a pack in the deliver function', () => {
  it('delivers, retries, waits and drops each notification on its own; only those to try again leave it, each with its own delay', async () => {
    const [fast, busy, hanging, gone] = await Promise.all([
      consumer(),
      consumer([{ status: 503, headers: { 'Retry-After': '7' } }]),
      consumer(['hang']),
      consumer([{ status: 410 }]),
    ]);
    const delivered = await Promise.all([subscribedTo(fast.url), subscribedTo(fast.url)]);
    const failed = await subscribedTo(busy.url);
    const hung = await subscribedTo(hanging.url);
    const goneOne = await subscribedTo(gone.url);
    const deleted = await subscribedTo(fast.url, false);
    // Another attempt holds the lease of this one's (subscription, address) cursor.
    const held = await subscribedTo(fast.url);
    const now = Date.now();
    await deliveryCursors().acquireDeliveryLeases([
      {
        subscriptionId: held.subscription.id,
        resourceAddress: held.accepted.resourceAddress,
        timeKey: parseTime(held.accepted.event.time),
        eventKey: 'other#event',
        leaseOwner: randomUUID(),
        now,
        leaseUntil: now + 60_000,
        expiresAt: Math.floor(now / 1000) + 3600,
        delivered: { source: 'other', id: 'event', time: held.accepted.event.time, deliveredAt: now },
      },
    ]);
    const pack = packOf([...delivered, failed, hung, goneOne, deleted, held]);

    const sqs = new DelayRecordingQueue();
    let settled = false;
    const running = deliveryBatch(sqs, 2000).process([pack], metrics);
    running.finally(() => {
      settled = true;
    });
    // The fast consumers have theirs while the hanging one still holds its POST open.
    await fast.waitFor(delivered.length);
    await hanging.waitFor(1);
    expect(settled).toBe(false);

    // The pack itself is deleted, not kept: no notification of it is sent again with it.
    expect(await running).toEqual([]);
    expect(sqs.visibility).toEqual([]);
    const left = new Map(
      sqs.sent.delivery.map((body) => [
        readNotification(body).subscriptionId,
        { body, delayMs: sqs.delays.get(body) },
      ]),
    );
    expect(new Set(left.keys())).toEqual(new Set([failed, hung, held].map((x) => x.subscription.id)));
    // The 503 after its Retry-After, the time-out after the back-off of a first attempt, each
    // counting the attempt it made; the lease wait after the lease's end at most, counting none.
    const leftFor = (x: typeof failed) => {
      const entry = left.get(x.subscription.id);
      return { message: readNotification(entry?.body ?? ''), delayMs: entry?.delayMs ?? -1 };
    };
    expect(leftFor(failed)).toMatchObject({ message: { attemptsMade: 1 }, delayMs: 7000 });
    expect(leftFor(hung).message.attemptsMade).toBe(1);
    expect(leftFor(hung).delayMs).toBeGreaterThanOrEqual(BACKOFF.baseMs / 2);
    expect(leftFor(hung).delayMs).toBeLessThanOrEqual(BACKOFF.baseMs);
    expect(leftFor(held).message.attemptsMade).toBeUndefined();
    expect(leftFor(held).delayMs).toBeLessThanOrEqual(1.5 * BACKOFF.baseMs);
    // Each leaves with its event and retry window, as it was in the pack.
    expect(leftFor(failed).message).toMatchObject({
      kind: 'delivery',
      subscriptionId: failed.subscription.id,
      subscriptionCreatedAt: failed.subscription.createdAt,
      event: failed.accepted.event,
      resourceAddress: failed.accepted.resourceAddress,
    });
    // 410 deleted its own subscription and no other; nothing was dead-lettered.
    const live = await signingSubscriptionStore().getSubscriptions(
      [...delivered, failed, hung, goneOne, held].map((x) => x.subscription.id),
    );
    expect(live.has(goneOne.subscription.id)).toBe(false);
    expect(live.size).toBe(5);
    expect(sqs.sent['dead-letter']).toEqual([]);
    // Each consumer was called once: the deleted subscription's never, the held one's not yet.
    expect(fast.received).toHaveLength(delivered.length);
    expect([busy, gone].map((c) => c.received.length)).toEqual([1, 1]);
  });

  it('keeps the pack only when a notification cannot leave it, for the back-off of its receive', async () => {
    const busy = await consumer([{ status: 503 }]);
    const fast = await consumer();
    const pack = packOf([await subscribedTo(busy.url), await subscribedTo(fast.url)]);
    const sqs = new DelayRecordingQueue();
    sqs.refuseDeliveries = true;
    expect(await deliveryBatch(sqs).process([pack], metrics)).toEqual([pack.messageId]);
    expect(sqs.visibility).toHaveLength(1);
    expect(sqs.visibility[0]?.receiptHandle).toBe(pack.receiptHandle);
    expect(sqs.visibility[0]?.timeoutMs).toBeLessThanOrEqual(BACKOFF.baseMs);
    expect(fast.received).toHaveLength(1);
  });

  it('dead-letters a pack it cannot read, saying why', async () => {
    const sqs = new DelayRecordingQueue();
    const unreadable = { messageId: randomUUID(), receiptHandle: randomUUID(), receiveCount: 1 };
    const body = JSON.stringify({
      kind: 'deliveries',
      events: [],
      deliveries: [{ subscriptionId: 'x', event: 0 }],
    });
    expect(await deliveryBatch(sqs).process([{ ...unreadable, body }], metrics)).toEqual([]);
    expect(sqs.sent['dead-letter'].map((letter) => JSON.parse(letter))).toMatchObject([
      {
        kind: 'dead-letter',
        reason: "unreadable message on the delivery queue: a delivery's event is not in the pack",
        queue: 'delivery',
        body,
      },
    ]);
  });
});

describe('packs end to end', () => {
  /** The pack on the delivery queue carrying a notification to every one of `subscriptionIds`. */
  function packFor(subscriptionIds: string[]) {
    return queue()
      .messages('delivery')
      .find((message) => {
        const parsed = parseDeliveryQueueMessage(message.body);
        const to = new Set(parsed.notifications.map((n: DeliveryMessage) => n.subscriptionId));
        return parsed.packed && subscriptionIds.every((id) => to.has(id));
      });
  }

  /** The fan-out message of the event `eventId`, while it is on its queue. */
  function fanOutOf(eventId: string) {
    return queue()
      .messages('fan-out')
      .find((message) => (JSON.parse(message.body) as { event: { id: string } }).event.id === eventId);
  }

  it('a hanging consumer delays no other consumer of the same batch, and is retried alone', async () => {
    const node = freshNode();
    const address = `${node}${LOCK_STATE}`;
    const publisherId = await registerPublisher(address);
    const hanging = await consumer(['hang']);
    const fast = await consumer();
    const hangingId = await subscribe(address, hanging.url);
    const fastId = await subscribe(address, fast.url);
    const event = eventAt(address, LOCK_STATE, 'HOLDOVER');
    await publishAccepted(publisherId, event);
    await Promise.all([fast.waitFor(1), hanging.waitFor(1)]);
    // Two notifications are delivered where they were fanned out (docs/delivery.md): delivered
    // while the fan-out that attempts both is still running, since the hanging POST holds its
    // invocation open until its time-out, and the fast one did not wait for it.
    expect(fanOutOf(event.id)).toMatchObject({ receiveCount: 1 });
    expect(packFor([hangingId, fastId])).toBeUndefined();
    // After the time-out, the hanging one is attempted again by itself; the fast one never again.
    await hanging.waitFor(2, 3 * TIMEOUT_MS);
    expect(fanOutOf(event.id)).toBeUndefined();
    expect(fast.received).toHaveLength(1);
    await unsubscribe(hangingId);
    await waitForQueueIdle({ concerning: address, timeoutMs: 3 * TIMEOUT_MS });
    expect(fast.received).toHaveLength(1);
  });

  it("retries only a pack's failing notification, after its Retry-After; a 410 deletes only its own subscription", async () => {
    const node = freshNode();
    const address = `${node}${LOCK_STATE}`;
    const publisherId = await registerPublisher(address);
    const ok = await consumer();
    const busy = await consumer([{ status: 429, headers: { 'Retry-After': '1' } }, { status: 204 }]);
    const gone = await consumer([{ status: 410 }]);
    const okId = await subscribe(address, ok.url);
    const busyId = await subscribe(address, busy.url);
    const goneId = await subscribe(address, gone.url);
    const event = eventAt(address, LOCK_STATE, 'HOLDOVER');
    await publishAccepted(publisherId, event);
    const [first, second] = await busy.waitFor(2);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1000 - 20);
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    await waitForQueueIdle({ concerning: address });
    expect(ok.received.map((r) => r.body)).toEqual([event]);
    expect(gone.received).toHaveLength(1);
    expect(await subscriptionStatus(goneId)).toBe(404);
    expect([await subscriptionStatus(okId), await subscriptionStatus(busyId)]).toEqual([200, 200]);
    expect(
      queue()
        .deadLetters()
        .filter((letter) =>
          [okId, busyId, goneId].includes((letter as { subscriptionId?: string }).subscriptionId ?? ''),
        ),
    ).toEqual([]);
  });

  it('a notification of a pack that waits for the lease of an earlier one leaves the pack and arrives after it, in order', async () => {
    const node = freshNode();
    const address = `${node}${LOCK_STATE}`;
    const publisherId = await registerPublisher(address);
    // The first event's POST takes a while: the second's attempt finds the lease held and waits.
    const slow = await consumer([{ status: 204, delayMs: 1500 }, { status: 204 }]);
    const other = await consumer();
    await subscribe(address, slow.url);
    await subscribe(address, other.url);
    const older = eventAt(address, LOCK_STATE, 'HOLDOVER', new Date(Date.now() - 1000).toISOString());
    const newer = eventAt(address, LOCK_STATE, 'FREERUN');
    await publishAccepted(publisherId, older);
    await slow.waitFor(1);
    await publishAccepted(publisherId, newer);
    await vi.waitFor(() => expect(other.received).toHaveLength(2), { timeout: 10_000 });
    await slow.waitFor(2);
    await waitForQueueIdle({ concerning: address });
    expect(slow.received.map((r) => (r.body as { id: string }).id)).toEqual([older.id, newer.id]);
    expect(other.received.map((r) => (r.body as { id: string }).id)).toEqual([older.id, newer.id]);
    expect(
      queue()
        .deadLetters()
        .filter((letter) => JSON.stringify(letter).includes(address)),
    ).toEqual([]);
  });
});
