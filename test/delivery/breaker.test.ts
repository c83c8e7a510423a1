/**
 * The breaker for dead endpoints (docs/delivery.md): an endpoint whose every attempt has failed
 * for the suspension time is suspended; its new notifications go straight to its dead letters
 * with the reason `endpoint suspended`, GET …/deliveries says so and since when, and the
 * consumer's redrive resumes it. A 2xx resets the clock. The suspension time is read when the
 * deliver function is first built, so this file sets a short one before anything is imported.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';

process.env.ENDPOINT_SUSPEND_AFTER_SECONDS = '1';
const { api, expectJson } = await import('../support/api');
const { captureEmf, metricValues } = await import('../support/emf');
const { useQueuedDelivery } = await import('../support/queued-delivery');
const { waitForQueueIdle } = await import('../support/queue-idle');
const { eventAt, freshNode, LOCK_STATE, registerPublisher, subscribe } = await import('./api');

useQueuedDelivery({ retryWindowSeconds: 30, backoffBaseMs: 50, backoffMaxMs: 400 });

/** A consumer endpoint whose answer the test sets, counting what it receives. */
async function endpoint() {
  const state = { status: 204, received: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.received += 1;
      res.writeHead(state.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events` };
}
const servers: http.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

interface DeadLetter {
  Reason: string;
  Event: { id: string };
}
interface Status {
  EndpointSuspended?: { Since: string; Reason: string };
}

describe('the breaker', () => {
  it('suspends an endpoint that failed every attempt for the suspension time; new notifications go straight to dead letters; a redrive resumes it', async () => {
    const node = freshNode();
    const address = `${node}${LOCK_STATE}`;
    await registerPublisher(address);
    const consumer = await endpoint();
    const id = await subscribe(address, consumer.url);
    consumer.state.status = 503;

    const startedAt = Date.now();
    const emf = await captureEmf(async () => {
      expect(
        (await api.publish((await publisherOf(address)) ?? '', eventAt(address, LOCK_STATE, 'FREERUN')))
          .status,
      ).toBe(202);
      await vi.waitFor(
        async () => {
          const letters = expectJson<DeadLetter[]>(await api.listDeadLetters(id), 200);
          expect(letters.map((letter) => letter.Reason)).toEqual([
            expect.stringMatching(/^endpoint suspended since /),
          ]);
        },
        { timeout: 20_000, interval: 200 },
      );
    });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1000);
    expect(metricValues(emf, 'EndpointsSuspended').map((m) => m.value)).toEqual([1]);
    const [letter] = expectJson<DeadLetter[]>(await api.listDeadLetters(id), 200);
    expect(letter?.Reason).toMatch(/; last failure: it answered HTTP 503$/);

    // GET …/deliveries says so and since when.
    const [status] = expectJson<Status[]>(await api.listDeliveries(id), 200);
    expect(status?.EndpointSuspended?.Reason).toContain('endpoint suspended');
    expect(Date.parse(status?.EndpointSuspended?.Since ?? '')).toBeGreaterThanOrEqual(startedAt);

    // A new notification: no attempt, straight to the dead letters.
    await waitForQueueIdle();
    const tried = consumer.state.received;
    const second = eventAt(address, LOCK_STATE, 'LOCKED', new Date(Date.now() + 1000).toISOString());
    expect((await api.publish((await publisherOf(address)) ?? '', second)).status).toBe(202);
    await waitForQueueIdle();
    expect(consumer.state.received).toBe(tried);
    const letters = expectJson<DeadLetter[]>(await api.listDeadLetters(id), 200);
    expect(letters.find((l) => l.Event.id === second.id)?.Reason).toMatch(/^endpoint suspended since /);

    // The consumer is back and redrives: resumed, and the newest event it missed is delivered.
    consumer.state.status = 204;
    expect((await api.redriveDeadLetters(id)).status).toBe(200);
    await vi.waitFor(() => expect(consumer.state.received).toBe(tried + 1), { timeout: 10_000 });
    const [after] = expectJson<Status[]>(await api.listDeliveries(id), 200);
    expect(after?.EndpointSuspended).toBeUndefined();
  }, 40_000);

  it('a 2xx resets the clock: failures interrupted by a success do not suspend', async () => {
    const node = freshNode();
    const address = `${node}${LOCK_STATE}`;
    await registerPublisher(address);
    const consumer = await endpoint();
    const id = await subscribe(address, consumer.url);
    const publisherId = (await publisherOf(address)) ?? '';
    for (let round = 0; round < 3; round++) {
      consumer.state.status = 400; // a refusal: dead-lettered at once, a failed attempt for the breaker
      const time = (ms: number) => new Date(Date.now() + round * 10 + ms).toISOString();
      await api.publish(publisherId, eventAt(address, LOCK_STATE, 'FREERUN', time(0)));
      await waitForQueueIdle();
      await new Promise((resolve) => setTimeout(resolve, 600));
      consumer.state.status = 204;
      await api.publish(publisherId, eventAt(address, LOCK_STATE, 'LOCKED', time(5)));
      await waitForQueueIdle();
    }
    // Over 1.8 s of failures in all, but never 1 s without a success between.
    const [status] = expectJson<Status[]>(await api.listDeliveries(id), 200);
    expect(status?.EndpointSuspended).toBeUndefined();
    const letters = expectJson<DeadLetter[]>(await api.listDeadLetters(id), 200);
    expect(letters.every((letter) => !letter.Reason.startsWith('endpoint suspended'))).toBe(true);
  }, 40_000);
});

async function publisherOf(address: string): Promise<string | undefined> {
  const listed = expectJson<{ SubscriptionId: string; ResourceAddress: string }[]>(
    await api.listPublishers(`?ResourceAddress=${encodeURIComponent(address)}`),
    200,
  );
  return listed.find((p) => p.ResourceAddress === address)?.SubscriptionId;
}
