/** Fan-out in bounded pieces: continuations carry the rest of a long fan-out to new invocations. */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FanOut } from '../../lib/delivery/fan-out';
import {
  type FanOutMessage,
  fanOutMessage,
  PACK_MAX_BYTES,
  PACK_MAX_DELIVERIES,
  type PackEntry,
  parseDeliveryQueueMessage,
  parseFanOutMessage,
} from '../../lib/delivery/messages';
import type { Metrics } from '../../lib/metrics';
import { subscriptionStore } from '../../lib/services';
import { lockStateEvent, uniqueCluster } from '../support/fixtures';
import { RecordingQueue } from '../support/recording-queue';

async function subscribe(resourceAddress: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  // Twenty at a time: DynamoDB Local on a loaded machine times out hundreds at once.
  for (let start = 0; start < ids.length; start += 20) {
    await Promise.all(
      ids.slice(start, start + 20).map((id) =>
        subscriptionStore().createSubscription({
          id,
          resourceAddress,
          endpointUri: `http://127.0.0.1:9/${id}`,
          owner: 'anonymous',
          createdAt: new Date().toISOString(),
        }),
      ),
    );
  }
  return ids;
}

/** A storm's shape: ten nodes of one site, a subscriber per node and one for the site. */
async function stormSite() {
  const site = `/${uniqueCluster()}/site-1`;
  const siteSubscriber = await subscribe(site, 1);
  const nodes = Array.from({ length: 10 }, (_, n) => `${site}/node-${n}`);
  const nodeSubscribers = await Promise.all(nodes.map((node) => subscribe(node, 1)));
  return { siteSubscriber, nodes, nodeSubscribers };
}

function acceptedAt(node: string): FanOutMessage {
  return fanOutMessage({
    publisherId: randomUUID(),
    resourceAddress: `${node}/sync/ptp-status/lock-state`,
    event: lockStateEvent({ node }) as FanOutMessage['event'],
    acceptedAt: new Date().toISOString(),
  });
}

/** Runs the fan-out message and every continuation it hands on, as the queue would. */
async function drain(
  fanOut: FanOut,
  queue: RecordingQueue,
  first: FanOutMessage,
  remainingMs?: () => number,
) {
  let invocations = 0;
  let next: FanOutMessage | undefined = first;
  while (next) {
    const before = queue.sent['fan-out'].length;
    await fanOut.run(next, remainingMs);
    invocations += 1;
    const handed = queue.sent['fan-out'].slice(before);
    expect(handed.length).toBeLessThanOrEqual(1);
    next = handed[0] === undefined ? undefined : parseFanOutMessage(handed[0]);
  }
  return invocations;
}

describe('fan-out continuations', () => {
  it('hands the rest to a continuation after a few pages, and every subscriber gets exactly one delivery', async () => {
    const site = `/${uniqueCluster()}/site-1`;
    const node = `${site}/node-1`;
    const expected = [...(await subscribe(node, 7)), ...(await subscribe(site, 5))];
    const queue = new RecordingQueue();
    const fanOut = new FanOut(subscriptionStore(), queue, { pageSize: 2, pagesPerInvocation: 2 });
    const invocations = await drain(fanOut, queue, acceptedAt(node));
    const delivered = notificationsSent(queue).map((n) => n.subscriptionId);
    expect([...delivered].sort()).toEqual([...expected].sort());
    // 4 pages at the node, 3 at the site (the last empty or short), 2 per invocation.
    expect(invocations).toBeGreaterThanOrEqual(4);
    // Some continuation stops inside an address's pages: it carries the page key to go on from.
    const continuations = queue.sent['fan-out'].map((body) => parseFanOutMessage(body).continuation);
    expect(continuations.some((c) => (c?.ancestor === node || c?.ancestor === site) && c.startKey)).toBe(
      true,
    );
  });

  it('hands over when its invocation is running out of time', async () => {
    const node = `/${uniqueCluster()}/site-1/node-1`;
    const expected = await subscribe(node, 3);
    const queue = new RecordingQueue();
    const fanOut = new FanOut(subscriptionStore(), queue, { pageSize: 1, reserveMs: 5000 });
    const invocations = await drain(fanOut, queue, acceptedAt(node), () => 1000);
    expect(
      notificationsSent(queue)
        .map((n) => n.subscriptionId)
        .sort(),
    ).toEqual([...expected].sort());
    expect(invocations).toBeGreaterThanOrEqual(3);
  });

  it('fails with a send that failed while it was still reading pages, and leaves no rejection unhandled', async () => {
    // A queue that refuses every send (a fault the local queue does not produce on demand). The
    // first page's send fails while the next page is being read: before, that rejection had no
    // handler yet, and Node ended the process (bench:fanout died of it under load).
    const node = `/${uniqueCluster()}/site-1/node-1`;
    await subscribe(node, 7);
    const refusing = new RecordingQueue();
    refusing.send = async () => {
      throw new Error('queue down');
    };
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const fanOut = new FanOut(subscriptionStore(), refusing, { pageSize: 2, pagesPerInvocation: 10 });
      await expect(fanOut.run(acceptedAt(node))).rejects.toThrow('queue down');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('reads the whole address in one invocation when it fits its page budget', async () => {
    const node = `/${uniqueCluster()}/site-1/node-1`;
    const expected = await subscribe(node, 3);
    const queue = new RecordingQueue();
    expect(await new FanOut(subscriptionStore(), queue).run(acceptedAt(node))).toBe(3);
    expect(queue.sent['fan-out']).toEqual([]);
    // One message carries the three.
    expect(queue.sent.delivery).toHaveLength(1);
    expect(
      notificationsSent(queue)
        .map((n) => n.subscriptionId)
        .sort(),
    ).toEqual([...expected].sort());
  });

  it('packs a large fan-out into messages of at most PACK_MAX_DELIVERIES, sent ten to a request', async () => {
    const node = `/${uniqueCluster()}/site-1/node-1`;
    const count = 2 * PACK_MAX_DELIVERIES + 10;
    const expected = await subscribe(node, count);
    const queue = new RecordingQueue();
    expect(await new FanOut(subscriptionStore(), queue).run(acceptedAt(node))).toBe(count);
    const packs = queue.sent.delivery.map((body) => parseDeliveryQueueMessage(body).notifications.length);
    expect(packs.sort((a, b) => b - a)).toEqual([PACK_MAX_DELIVERIES, PACK_MAX_DELIVERIES, 10]);
    expect(queue.requests.delivery).toBe(1);
    expect(
      notificationsSent(queue)
        .map((n) => n.subscriptionId)
        .sort(),
    ).toEqual([...expected].sort());
    // The event is written once per pack, not once per notification.
    for (const body of queue.sent.delivery) expect(body.split('"specversion"')).toHaveLength(2);
  });

  it('keeps each pack within PACK_MAX_BYTES, however large its events', async () => {
    // Ten events of about 60 KiB (an event may have up to 64 KiB), each to one subscriber: a
    // pack of all ten would be 600 KiB.
    const site = `/${uniqueCluster()}/site-1`;
    const nodes = Array.from({ length: 10 }, (_, n) => `${site}/node-${n}`);
    await Promise.all(nodes.map((node) => subscribe(node, 1)));
    const queue = new RecordingQueue();
    const fanOut = new FanOut(subscriptionStore(), queue);
    const batch = fanOut.batch();
    const events = nodes.map((node) => {
      const message = acceptedAt(node);
      const values = [{ ...message.event.data.values[0], padding: 'x'.repeat(60 * 1024) }];
      return {
        ...message,
        event: { ...message.event, data: { ...message.event.data, values } },
      } as FanOutMessage;
    });
    await Promise.all(events.map((m) => fanOut.run(m, undefined, batch)));
    expect(queue.sent.delivery.length).toBeGreaterThan(1);
    for (const body of queue.sent.delivery)
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(PACK_MAX_BYTES);
    expect(notificationsSent(queue)).toHaveLength(10);
  });

  it('reads an ancestor shared by the events of one batch once, and each event still reaches every subscriber', async () => {
    const site = `/${uniqueCluster()}/site-1`;
    const siteSubscribers = await subscribe(site, 2);
    const nodeSubscribers = await subscribe(`${site}/node-1`, 1);
    const store = subscriptionStore();
    const reads: string[] = [];
    const counting = {
      ...store,
      subscriptionsAt: (address: string, options: Parameters<typeof store.subscriptionsAt>[1]) => {
        reads.push(address);
        return store.subscriptionsAt(address, options);
      },
    } as typeof store;
    const queue = new RecordingQueue();
    const fanOut = new FanOut(counting, queue);
    const batch = fanOut.batch();
    const [one, two] = [acceptedAt(`${site}/node-1`), acceptedAt(`${site}/node-2`)];
    await Promise.all([one, two].map((m) => fanOut.run(m, undefined, batch)));
    expect(reads.filter((address) => address === site)).toHaveLength(1);
    const to = (m: FanOutMessage) => subscriptionsSentFor(queue, m);
    expect(to(one)).toEqual([...siteSubscribers, ...nodeSubscribers].sort());
    expect(to(two)).toEqual([...siteSubscribers].sort());
  });

  it('reads anew in every batch: a subscription made after one batch read its address is in the next', async () => {
    // The pages a batch shares are read once its events are accepted, and live for that batch
    // only: a subscription made before an event is accepted always receives it.
    const site = `/${uniqueCluster()}/site-1`;
    const first = await subscribe(site, 1);
    const queue = new RecordingQueue();
    const fanOut = new FanOut(subscriptionStore(), queue);
    const one = acceptedAt(`${site}/node-1`);
    await fanOut.run(one, undefined, fanOut.batch());
    const later = await subscribe(site, 1);
    const two = acceptedAt(`${site}/node-2`);
    await fanOut.run(two, undefined, fanOut.batch());
    expect(subscriptionsSentFor(queue, one)).toEqual(first);
    expect(subscriptionsSentFor(queue, two)).toEqual([...first, ...later].sort());
  });

  it('packs the notifications of the events of one batch into one message', async () => {
    // A storm's shape: ten nodes of one site, a subscriber per node and one for the site. Sent
    // page by page, one message per notification, that was 20 messages; packed, it is one.
    const { siteSubscriber, nodes, nodeSubscribers } = await stormSite();
    const queue = new RecordingQueue();
    const fanOut = new FanOut(subscriptionStore(), queue);
    const batch = fanOut.batch();
    const events = nodes.map((node) => acceptedAt(node));
    expect(await Promise.all(events.map((m) => fanOut.run(m, undefined, batch)))).toEqual(
      events.map(() => 2),
    );
    expect(queue.requests.delivery).toBe(1);
    expect(queue.sent.delivery).toHaveLength(1);
    const to = (m: FanOutMessage) => subscriptionsSentFor(queue, m);
    events.forEach((m, n) => {
      expect(to(m)).toEqual([...siteSubscriber, ...(nodeSubscribers[n] ?? [])].sort());
    });
  });

  it('fails every event whose messages rode on a request that failed', async () => {
    const site = `/${uniqueCluster()}/site-1`;
    await subscribe(site, 1);
    const refusing = new RecordingQueue();
    refusing.send = async () => {
      throw new Error('queue down');
    };
    const fanOut = new FanOut(subscriptionStore(), refusing);
    const batch = fanOut.batch();
    const results = await Promise.allSettled(
      [`${site}/node-1`, `${site}/node-2`].map((node) => fanOut.run(acceptedAt(node), undefined, batch)),
    );
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});

describe('delivered where fanned out', () => {
  /** A deliverNow that notes what it was given and answers `ok` for each. */
  function deliverNowNoting(ok = true) {
    const given: PackEntry[][] = [];
    const deliverNow = async (entries: readonly PackEntry[]) => {
      given.push([...entries]);
      return entries.map(() => ok);
    };
    return { given, deliverNow };
  }
  const metrics = { count: () => undefined, deliveryLatency: () => undefined } as unknown as Metrics;

  it("attempts a storm batch's notifications itself, once every event is fanned out, and queues none", async () => {
    const { siteSubscriber, nodes, nodeSubscribers } = await stormSite();
    const queue = new RecordingQueue();
    const { given, deliverNow } = deliverNowNoting();
    const fanOut = new FanOut(subscriptionStore(), queue, {}, Date.now, deliverNow);
    const batch = fanOut.batch(metrics);
    const events = nodes.map((node) => acceptedAt(node));
    await Promise.all(events.map((m) => fanOut.run(m, undefined, batch)));
    expect(queue.sent.delivery).toEqual([]);
    // One call for the whole batch: the twenty notifications are attempted side by side.
    expect(given).toHaveLength(1);
    const to = (m: FanOutMessage) =>
      (given[0] ?? [])
        .filter((entry) => entry.accepted.event.id === m.event.id)
        .map((entry) => entry.subscription.id)
        .sort();
    events.forEach((m, n) => {
      expect(to(m)).toEqual([...siteSubscriber, ...(nodeSubscribers[n] ?? [])].sort());
    });
  });

  it('makes the same notifications in every run of one message, so a run after a crash mid-POST is known to their leases', async () => {
    const node = `/${uniqueCluster()}/site-1/node-1`;
    await subscribe(node, 2);
    const queue = new RecordingQueue();
    const { given, deliverNow } = deliverNowNoting();
    let now = Date.now();
    const fanOut = new FanOut(subscriptionStore(), queue, {}, () => now, deliverNow);
    const message = acceptedAt(node);
    await fanOut.run(message, undefined, fanOut.batch(metrics));
    now += 60_000; // the queue brings the message back a minute later
    await fanOut.run(message, undefined, fanOut.batch(metrics));
    const windows = given.map((entries) => entries.map((entry) => entry.enqueuedAt.toISOString()));
    // Their retry windows (and so their ordering leases' owners) start at the event's acceptance.
    expect(windows).toEqual([
      [message.acceptedAt, message.acceptedAt],
      [message.acceptedAt, message.acceptedAt],
    ]);
  });

  it('queues a batch of ten packs or more, as packs, and attempts none of it itself', async () => {
    const node = `/${uniqueCluster()}/site-1/node-1`;
    const count = 10 * PACK_MAX_DELIVERIES + 1;
    await subscribe(node, count);
    const queue = new RecordingQueue();
    const { given, deliverNow } = deliverNowNoting();
    const fanOut = new FanOut(subscriptionStore(), queue, {}, Date.now, deliverNow);
    expect(await fanOut.run(acceptedAt(node), undefined, fanOut.batch(metrics))).toBe(count);
    expect(given).toEqual([]);
    expect(notificationsSent(queue)).toHaveLength(count);
  });

  it('fails the events whose notification could not be put on the delivery queue for a later attempt', async () => {
    const site = `/${uniqueCluster()}/site-1`;
    await subscribe(site, 1);
    const queue = new RecordingQueue();
    const { deliverNow } = deliverNowNoting(false);
    const fanOut = new FanOut(subscriptionStore(), queue, {}, Date.now, deliverNow);
    const batch = fanOut.batch(metrics);
    const results = await Promise.allSettled(
      [`${site}/node-1`, `${site}/node-2`].map((node) => fanOut.run(acceptedAt(node), undefined, batch)),
    );
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});

/** The notifications of every message `queue` was given for the delivery queue. */
function notificationsSent(queue: RecordingQueue) {
  return queue.sent.delivery.flatMap((body) => parseDeliveryQueueMessage(body).notifications);
}

/** The subscriptions `queue` was given a notification of `m` for, sorted. */
function subscriptionsSentFor(queue: RecordingQueue, m: FanOutMessage): string[] {
  return notificationsSent(queue)
    .filter((d) => d.event.id === m.event.id)
    .map((d) => d.subscriptionId)
    .sort();
}
