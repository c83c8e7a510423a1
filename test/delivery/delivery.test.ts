/**
 * Queued delivery end to end, in-process: the publish handler, the local queue, the real fan-out
 * and deliver handlers, DynamoDB Local and consumers as real HTTP endpoints on 127.0.0.1. Back-offs
 * and the retry window are shortened by configuration, as an operator would.
 */
import http from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { parseDeliveryQueueMessage } from '../../lib/delivery/messages';
import { runDeadLetters } from '../../scripts/dead-letters';
import { freePort } from '../../scripts/dynamodb-local';
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
  subscriptionStatus,
  unsubscribe,
} from './api';

const WINDOW_SECONDS = 3;
const BASE_MS = 50;
const MAX_MS = 400;

const queue = useQueuedDelivery({
  retryWindowSeconds: WINDOW_SECONDS,
  backoffBaseMs: BASE_MS,
  backoffMaxMs: MAX_MS,
});
const consumer = trackConsumers();

/** A publisher without state (so subscribing sends no initial notification) and its address. */
async function publisher(node = freshNode(), source = LOCK_STATE) {
  const address = `${node}${source}`;
  return { address, id: await registerPublisher(address), node };
}

function deadLettersOf(subscriptionId: string) {
  return queue()
    .deadLetters()
    .filter((letter) => (letter as { subscriptionId?: string }).subscriptionId === subscriptionId) as Array<
    Record<string, unknown>
  >;
}

/** The subscription's dead letters once there is one (for `vi.waitFor`). */
function deadLettersFor(subscriptionId: string) {
  const letters = deadLettersOf(subscriptionId);
  if (letters.length === 0) throw new Error(`no dead letter for ${subscriptionId} yet`);
  return letters;
}

describe('queued delivery', () => {
  it('delivers an accepted event with a webhook-id, a webhook-timestamp and the event as the body', async () => {
    const pub = await publisher();
    const fast = await consumer();
    await subscribe(pub.address, fast.url);
    const event = eventAt(pub.address, LOCK_STATE, 'HOLDOVER');
    const before = Math.floor(Date.now() / 1000);
    await publishAccepted(pub.id, event);
    const [received] = await fast.waitFor(1);
    expect(received?.body).toEqual(event);
    expect(received?.headers['content-type']).toMatch(/^application\/json/);
    expect(received?.headers['webhook-id']).toMatch(/^msg_/);
    expect(Number(received?.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(before);
    expect(received?.headers['user-agent']).toMatch(/^ocloud-notifications\//);
  });

  it('a consumer that is down for a while receives everything once it is back', async () => {
    const node = freshNode();
    const pubs = [
      await publisher(node, LOCK_STATE),
      await publisher(node, CLOCK_CLASS),
      await publisher(node, SYNC_STATE),
    ];
    const port = await freePort();
    // Up when it subscribes (subscribing checks that it accepts a connection), then down.
    const up = http.createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => up.listen(port, '127.0.0.1', resolve));
    await subscribe(node, `http://127.0.0.1:${port}/events`);
    up.closeAllConnections();
    await new Promise((resolve) => up.close(resolve));
    const events = [
      eventAt(pubs[0]?.address ?? '', LOCK_STATE, 'HOLDOVER'),
      eventAt(pubs[1]?.address ?? '', CLOCK_CLASS, 7),
      eventAt(pubs[2]?.address ?? '', SYNC_STATE, 'FREERUN'),
    ];
    for (const [i, pub] of pubs.entries()) await publishAccepted(pub.id, events[i]);
    // Refused connections meanwhile: every notification was tried and waits on the queue for a
    // retry (a notification of a pack waits as a message of its own, carrying its attempts).
    const tried = (message: { receiveCount: number; body: string }) =>
      message.receiveCount >= 1 ||
      parseDeliveryQueueMessage(message.body).notifications.every((n) => (n.attemptsMade ?? 0) >= 1);
    await vi.waitFor(() => {
      expect(queue().messages('fan-out')).toEqual([]);
      const pending = queue().messages('delivery');
      expect(pending.length).toBeGreaterThan(0);
      expect(pending.every(tried)).toBe(true);
    }, 5000);

    const received: unknown[] = [];
    const server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => {
        raw += chunk;
      });
      req.on('end', () => {
        received.push(JSON.parse(raw));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      // Retries come back in whole seconds, as SQS's visibility time-outs do.
      await vi.waitFor(() => expect(received.length).toBeGreaterThanOrEqual(3), { timeout: 5000 });
      expect(received).toEqual(expect.arrayContaining(events));
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('503 twice then 204: three attempts with the same webhook-id, spaced by the back-off', async () => {
    const pub = await publisher();
    const flaky = await consumer([{ status: 503 }, { status: 503 }, { status: 204 }]);
    await subscribe(pub.address, flaky.url);
    const event = eventAt(pub.address, LOCK_STATE, 'FREERUN');
    await publishAccepted(pub.id, event);
    const attempts = await flaky.waitFor(3);
    await waitForQueueIdle({ concerning: pub.address });
    expect(attempts).toHaveLength(3); // delivered on the third: no fourth
    expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
    for (const attempt of attempts) expect(attempt.body).toEqual(event);
    // Equal jitter: the n-th wait is at least half of min(max, base·2^(n−1)).
    expect((attempts[1]?.at ?? 0) - (attempts[0]?.at ?? 0)).toBeGreaterThanOrEqual(BASE_MS / 2 - 5);
    expect((attempts[2]?.at ?? 0) - (attempts[1]?.at ?? 0)).toBeGreaterThanOrEqual(BASE_MS - 5);
  });

  it('410 Gone deletes the subscription and dead-letters nothing', async () => {
    const pub = await publisher();
    const gone = await consumer([{ status: 410 }]);
    const subscriptionId = await subscribe(pub.address, gone.url);
    await publishAccepted(pub.id, eventAt(pub.address, LOCK_STATE, 'LOCKED'));
    await gone.waitFor(1);
    await vi.waitFor(async () => expect(await subscriptionStatus(subscriptionId)).toBe(404));
    await publishAccepted(pub.id, eventAt(pub.address, LOCK_STATE, 'HOLDOVER'));
    await waitForQueueIdle({ concerning: pub.address });
    expect(gone.received).toHaveLength(1);
    expect(deadLettersOf(subscriptionId)).toEqual([]);
  });

  it('a hanging consumer does not delay a fast one beside it', async () => {
    const pub = await publisher();
    const hanging = await consumer(['hang']);
    const fast = await consumer();
    await subscribe(pub.address, hanging.url);
    await subscribe(pub.address, fast.url);
    const latencies: number[] = [];
    for (const value of ['HOLDOVER', 'FREERUN', 'LOCKED', 'HOLDOVER', 'FREERUN'] as const) {
      const started = Date.now();
      await publishAccepted(pub.id, eventAt(pub.address, LOCK_STATE, value));
      const received = await fast.waitFor(latencies.length + 1);
      latencies.push((received.at(-1)?.at ?? 0) - started);
      expect(received.at(-1)?.body).toMatchObject({ data: { values: [{ value }] } });
    }
    expect(hanging.received.length).toBeGreaterThanOrEqual(1);
    // The hanging endpoint holds each attempt for the full 2 s time-out.
    expect(Math.max(...latencies)).toBeLessThan(1000);
  });

  it('an inclusive subscription receives the events of every publisher under its address', async () => {
    const node = freshNode();
    const lock = await publisher(node, LOCK_STATE);
    const clock = await publisher(node, CLOCK_CLASS);
    const elsewhere = await publisher(node.replace(/node-1$/, 'node-2'), LOCK_STATE);
    const parent = await consumer();
    const sync = await consumer();
    await subscribe(node, parent.url);
    await subscribe(`${node}/sync/ptp-status`, sync.url);
    const events = [
      eventAt(lock.address, LOCK_STATE, 'HOLDOVER'),
      eventAt(clock.address, CLOCK_CLASS, 7),
      eventAt(clock.address, CLOCK_CLASS, 248, new Date(Date.now() + 1000).toISOString()),
    ];
    await publishAccepted(lock.id, events[0]);
    await publishAccepted(clock.id, events[1]);
    await publishAccepted(clock.id, events[2]);
    await publishAccepted(elsewhere.id, eventAt(elsewhere.address, LOCK_STATE, 'FREERUN'));
    // The newest clock-class event may wait for the lease of the one before it: wait for it.
    const newest = events[2]?.id;
    for (const c of [parent, sync]) {
      while (!c.received.some((r) => (r.body as { id: string }).id === newest)) {
        await c.waitFor(c.received.length + 1);
      }
    }
    await waitForQueueIdle({ concerning: node });
    for (const c of [parent, sync]) {
      const bodies = c.received.map((r) => r.body);
      expect(bodies).toContainEqual(events[0]);
      expect(bodies).toContainEqual(events[2]);
      // events[1] may have been superseded by events[2] before it went out; never after it.
      const clockTimes = bodies.filter((b) => (b as { source: string }).source === CLOCK_CLASS);
      expect(clockTimes.at(-1)).toEqual(events[2]);
      expect(bodies).toHaveLength(clockTimes.length + 1);
    }
  });

  it('events published in quick succession arrive in order or superseded, never older after newer', async () => {
    for (let round = 0; round < 3; round++) {
      const pub = await publisher();
      const slowish = await consumer([{ status: 204, delayMs: 30 }]);
      await subscribe(pub.address, slowish.url);
      const start = Date.now();
      const events = ['HOLDOVER', 'FREERUN', 'LOCKED'].map((value, i) =>
        eventAt(pub.address, LOCK_STATE, value, new Date(start + i).toISOString()),
      );
      // Back to back: each is accepted before the previous one is delivered.
      for (const event of events) await publishAccepted(pub.id, event);
      // A later event waiting behind an earlier one is retried in whole seconds, as SQS's visibility time-outs are.
      await vi.waitFor(
        () => expect(slowish.received.map((r) => (r.body as { id: string }).id)).toContain(events[2]?.id),
        { timeout: 5000 },
      );
      await waitForQueueIdle({ concerning: pub.address });
      const times = slowish.received.map((r) => Date.parse((r.body as { time: string }).time));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(new Set(times).size).toBe(times.length);
      expect(slowish.received.at(-1)?.body).toEqual(events[2]);
    }
  });

  it('dead-letters what was not delivered within the retry window, saying which subscription, which event and why', async () => {
    const pub = await publisher();
    const failing = await consumer([{ status: 503 }]);
    const subscriptionId = await subscribe(pub.address, failing.url);
    const event = eventAt(pub.address, LOCK_STATE, 'HOLDOVER');
    const published = Date.now();
    await publishAccepted(pub.id, event);
    const [letter] = await vi.waitFor(() => deadLettersFor(subscriptionId), {
      timeout: (WINDOW_SECONDS + 5) * 1000,
    });
    expect(Date.now() - published).toBeGreaterThanOrEqual(WINDOW_SECONDS * 1000 - 100);
    expect(letter).toMatchObject({
      kind: 'dead-letter',
      subscriptionId,
      endpointUri: failing.url,
      resourceAddress: pub.address,
      publisherId: pub.id,
      event,
      webhookId: failing.received[0]?.headers['webhook-id'],
    });
    expect(letter?.reason).toMatch(/retry window of 3 s ended; last failure: it answered HTTP 503/);
    expect(letter?.attempts).toBeGreaterThanOrEqual(failing.received.length);
    expect(failing.received.length).toBeGreaterThanOrEqual(4);
    const count = failing.received.length;
    await waitForQueueIdle({ concerning: pub.address });
    expect(failing.received).toHaveLength(count); // given up on: no more attempts
  });

  it('lists a dead letter with its reason, endpoint, event and attempts, and delivers it again when redriven', async () => {
    const pub = await publisher();
    const fixed = await consumer([{ status: 400 }, { status: 204 }]);
    const subscriptionId = await subscribe(pub.address, fixed.url);
    const event = eventAt(pub.address, LOCK_STATE, 'FREERUN');
    await publishAccepted(pub.id, event);
    await vi.waitFor(() => deadLettersFor(subscriptionId));
    const letter = queue()
      .messages('dead-letter')
      .find((message) => message.body.includes(subscriptionId));
    const listed = runDeadLetters([], queue().path);
    expect(listed.code).toBe(0);
    expect(listed.text).toContain(letter?.messageId);
    expect(listed.text).toContain('reason:       it answered HTTP 400, which is not retried');
    expect(listed.text).toContain(`endpoint:     ${fixed.url}`);
    expect(listed.text).toContain(`id ${event.id}`);
    expect(listed.text).toMatch(/after 1 attempt/);

    const redriven = runDeadLetters(['--redrive', letter?.messageId ?? ''], queue().path);
    expect(redriven.code).toBe(0);
    expect(redriven.text).toMatch(
      new RegExp(
        `^redriven ${letter?.messageId} to the delivery queue\n1 redriven.\n.*says so if one is dropped`,
      ),
    );
    // The fixed consumer now takes it; the dead letter is gone.
    await vi.waitFor(() => expect(fixed.received.map((r) => r.body)).toEqual([event, event]), {
      timeout: 5000,
    });
    await waitForQueueIdle({ concerning: pub.address });
    expect(deadLettersOf(subscriptionId)).toEqual([]);
  });

  it('says why a redriven dead letter is dropped when a newer event was delivered since', async () => {
    const pub = await publisher();
    const fixed = await consumer([{ status: 400 }, { status: 204 }]);
    const subscriptionId = await subscribe(pub.address, fixed.url);
    const older = eventAt(pub.address, LOCK_STATE, 'FREERUN');
    await publishAccepted(pub.id, older);
    const [letter] = await vi.waitFor(() => deadLettersFor(subscriptionId));
    const newer = eventAt(pub.address, LOCK_STATE, 'LOCKED');
    await publishAccepted(pub.id, newer);
    await fixed.waitFor(2);
    await waitForQueueIdle({ concerning: pub.address });

    const logged: string[] = [];
    const write = process.stderr.write.bind(process.stderr); // warnings: Powertools writes them to stderr
    vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array) => {
      logged.push(String(chunk));
      return write(chunk);
    }) as typeof process.stdout.write);
    const messageId = queue()
      .messages('dead-letter')
      .find((message) => message.body.includes(subscriptionId))?.messageId;
    expect(runDeadLetters(['--redrive', messageId ?? ''], queue().path).code).toBe(0);
    const line = await vi.waitFor(
      () => {
        const found = logged.find((text) => text.includes('redriven notification dropped'));
        if (!found) throw new Error('nothing said yet');
        return JSON.parse(found) as { notice: string; level: string };
      },
      { timeout: 5000 },
    );
    vi.restoreAllMocks();

    expect(line.notice).toBe(
      `redriven notification dropped: event ${older.source} ${older.id} at ${pub.address} for subscription ${subscriptionId}: a newer event for the address has been delivered to the subscription since`,
    );
    await waitForQueueIdle({ concerning: pub.address });
    expect(fixed.received.map((r) => r.body)).toEqual([older, newer]); // not the older one again
    expect(deadLettersOf(subscriptionId)).toEqual([]);
    expect(letter).toMatchObject({ event: older });
  });

  it('dead-letters a 400 at once, without a retry', async () => {
    const pub = await publisher();
    const refusing = await consumer([{ status: 400 }]);
    const subscriptionId = await subscribe(pub.address, refusing.url);
    const event = eventAt(pub.address, LOCK_STATE, 'FREERUN');
    await publishAccepted(pub.id, event);
    const [letter] = await vi.waitFor(() => deadLettersFor(subscriptionId));
    expect(letter).toMatchObject({ subscriptionId, event, attempts: 1 });
    expect(letter?.reason).toBe('it answered HTTP 400, which is not retried');
    await waitForQueueIdle({ concerning: pub.address });
    expect(refusing.received).toHaveLength(1);
    expect(await subscriptionStatus(subscriptionId)).toBe(200);
  });

  it('honours Retry-After: the next attempt waits for it, not for the shorter back-off', async () => {
    const pub = await publisher();
    const busy = await consumer([{ status: 429, headers: { 'Retry-After': '2' } }, { status: 204 }]);
    await subscribe(pub.address, busy.url);
    await publishAccepted(pub.id, eventAt(pub.address, LOCK_STATE, 'HOLDOVER'));
    const [first, second] = await busy.waitFor(2);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(2000 - 20);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeLessThan(2000 + 1000);
  });

  it('DELETE of a subscription drops its pending deliveries', async () => {
    const pub = await publisher();
    const failing = await consumer([{ status: 500 }]);
    const subscriptionId = await subscribe(pub.address, failing.url);
    await publishAccepted(pub.id, eventAt(pub.address, LOCK_STATE, 'HOLDOVER'));
    await failing.waitFor(1);
    await unsubscribe(subscriptionId);
    const count = failing.received.length;
    await waitForQueueIdle({ concerning: pub.address });
    expect(failing.received.length).toBeLessThanOrEqual(count + 1); // at most one attempt in flight
    expect(deadLettersOf(subscriptionId)).toEqual([]);
  });

  it("sends a new inclusive subscription's other current states through the queue", async () => {
    const node = freshNode();
    const lock = await publisher(node, LOCK_STATE);
    const clock = await publisher(node, CLOCK_CLASS);
    const older = eventAt(lock.address, LOCK_STATE, 'HOLDOVER', new Date(Date.now() - 1000).toISOString());
    const newer = eventAt(clock.address, CLOCK_CLASS, 7);
    await publishAccepted(lock.id, older);
    await publishAccepted(clock.id, newer);
    const late = await consumer();
    await subscribe(node, late.url);
    const received = await late.waitFor(2);
    expect(received[0]?.body).toEqual(newer); // the initial notification
    expect(received[1]?.body).toEqual(older);
  });

  it('emits NotificationsDelivered, NotificationDeliveryFailures and DeliveryLatency', async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      lines.push(String(line));
    });
    try {
      const pub = await publisher();
      const flaky = await consumer([{ status: 503 }, { status: 204 }]);
      await subscribe(pub.address, flaky.url);
      await publishAccepted(pub.id, eventAt(pub.address, LOCK_STATE, 'HOLDOVER'));
      await flaky.waitFor(2);
      await vi.waitFor(() => expect(lines.join('\n')).toContain('"NotificationsDelivered"'));
    } finally {
      spy.mockRestore();
    }
    const metrics = lines.filter((line) => line.includes('"_aws"')).map((line) => JSON.parse(line));
    const delivered = metrics.find((m) => m.NotificationsDelivered !== undefined);
    expect(delivered?.DeliveryLatency).toBeGreaterThan(0);
    expect(delivered?._aws.CloudWatchMetrics[0].Namespace).toBe('OCloudNotifications');
    expect(metrics.some((m) => m.NotificationDeliveryFailures !== undefined)).toBe(true);
  });
});
