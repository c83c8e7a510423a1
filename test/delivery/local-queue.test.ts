/** The local queue's SQS semantics, through its HTTP API and its poller. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type LocalQueue, type SqsLikeEvent, startLocalQueue } from '../../scripts/local-queue.mjs';

let queue: LocalQueue | undefined;
afterEach(async () => {
  await queue?.stop();
  queue = undefined;
});

async function start(options: Parameters<typeof startLocalQueue>[0] = {}) {
  queue = await startLocalQueue({ log: () => undefined, ...options });
  return queue;
}

async function call(q: LocalQueue, name: string, action: string, body: unknown) {
  const response = await fetch(`${q.url}/queues/${name}/${action}`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
  return { status: response.status, body: response.status === 200 ? await response.json() : undefined };
}

type Received = { messageId: string; receiptHandle: string; body: string; receiveCount: number };
const receive = async (q: LocalQueue, max = 10, visibilityMs = 30_000): Promise<Received[]> =>
  ((await call(q, 'delivery', 'receive', { max, visibilityMs })).body as { messages: Received[] }).messages;

describe('local queue: HTTP API', () => {
  it('hides a received message for its visibility time-out and counts receives', async () => {
    const q = await start();
    await call(q, 'delivery', 'messages', { messages: [{ body: 'a' }] });
    const [first] = await receive(q, 10, 150);
    expect(first).toMatchObject({ body: 'a', receiveCount: 1 });
    expect(await receive(q)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [again] = await receive(q);
    expect(again).toMatchObject({ messageId: first?.messageId, receiveCount: 2 });
    expect(again?.receiptHandle).not.toBe(first?.receiptHandle);
  });

  it('delays a message, deletes by receipt handle and refuses a stale one', async () => {
    const q = await start();
    await call(q, 'delivery', 'messages', { messages: [{ body: 'later', delayMs: 150 }] });
    expect(await receive(q)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [first] = await receive(q, 1, 0);
    const [second] = await receive(q, 1, 30_000);
    expect((await call(q, 'delivery', 'delete', { receiptHandle: first?.receiptHandle })).status).toBe(404);
    expect((await call(q, 'delivery', 'visibility', { receiptHandle: first?.receiptHandle })).status).toBe(
      404,
    );
    expect((await call(q, 'delivery', 'delete', { receiptHandle: second?.receiptHandle })).status).toBe(204);
    expect(q.messages('delivery')).toEqual([]);
  });

  it('changes the visibility of a received message', async () => {
    const q = await start();
    await call(q, 'delivery', 'messages', { messages: [{ body: 'x' }] });
    const [message] = await receive(q, 1, 60_000);
    await call(q, 'delivery', 'visibility', { receiptHandle: message?.receiptHandle, visibilityMs: 0 });
    expect(await receive(q)).toHaveLength(1);
  });

  it('answers 404 for an unknown queue and 400 for a malformed request', async () => {
    const q = await start();
    expect((await call(q, 'nope', 'messages', { messages: [] })).status).toBe(404);
    expect((await call(q, 'delivery', 'messages', { messages: [{ nobody: 1 }] })).status).toBe(400);
  });
});

describe('local queue: poller', () => {
  it('invokes with SQS-shaped events, deletes what succeeded and keeps what failed', async () => {
    const q = await start();
    const events: SqsLikeEvent[] = [];
    q.startPolling(async (_key, event) => {
      events.push(event);
      return {
        batchItemFailures: event.Records.filter((r) => r.body === 'fail').map((r) => ({
          itemIdentifier: r.messageId,
        })),
      };
    });
    q.send('delivery', [{ body: 'ok' }, { body: 'fail' }]);
    await vi.waitFor(() => expect(q.messages('delivery')).toHaveLength(1));
    expect(q.messages('delivery')[0]).toMatchObject({ body: 'fail', receiveCount: 1 });
    const record = events[0]?.Records[0];
    expect(record).toMatchObject({ eventSource: 'aws:sqs', attributes: { ApproximateReceiveCount: '1' } });
  });

  it('runs batches at once, so one slow invocation does not hold up the next batch', async () => {
    const q = await start({
      consumers: [
        {
          queue: 'delivery',
          functionKey: 'deliver',
          batchSize: 1,
          visibilityMs: 10_000,
          concurrency: 4,
          maxReceiveCount: 5,
        },
      ],
    });
    const done: string[] = [];
    q.startPolling(async (_key, event) => {
      const body = event.Records[0]?.body ?? '';
      if (body === 'slow') await new Promise((resolve) => setTimeout(resolve, 1000));
      done.push(body);
      return { batchItemFailures: [] };
    });
    q.send('delivery', [{ body: 'slow' }, { body: 'fast' }]);
    await vi.waitFor(() => expect(done).toContain('fast'), { timeout: 800 });
    expect(done).toEqual(['fast']);
  });

  it('moves a message received too often to the dead-letter queue (redrive)', async () => {
    const dead: string[] = [];
    const q = await start({
      consumers: [
        {
          queue: 'delivery',
          functionKey: 'deliver',
          batchSize: 10,
          visibilityMs: 10,
          concurrency: 1,
          maxReceiveCount: 3,
        },
      ],
      onDeadLetter: ({ body, deadLetterSourceQueue }) => dead.push(`${deadLetterSourceQueue}:${body}`),
    });
    let invocations = 0;
    q.startPolling(async (_key, event) => {
      invocations += 1;
      return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
    });
    q.send('delivery', [{ body: 'poison' }]);
    await vi.waitFor(() => expect(dead).toHaveLength(1));
    expect(dead).toEqual(['delivery:poison']);
    expect(invocations).toBe(3);
    expect(q.deadLetters()).toEqual(['poison']);
    expect(q.messages('delivery')).toEqual([]);
  });

  it('leaves a failed invocation’s batch hidden until its visibility time-out', async () => {
    const q = await start({
      consumers: [
        {
          queue: 'fan-out',
          functionKey: 'fanOut',
          batchSize: 1,
          visibilityMs: 200,
          concurrency: 1,
          maxReceiveCount: 5,
        },
      ],
    });
    const at: number[] = [];
    q.startPolling(async () => {
      at.push(Date.now());
      if (at.length === 1) throw new Error('boom');
      return null;
    });
    q.send('fan-out', [{ body: '{}' }]);
    await vi.waitFor(() => {
      expect(at).toHaveLength(2);
      expect(q.idle()).toBe(true);
    });
    expect((at[1] ?? 0) - (at[0] ?? 0)).toBeGreaterThanOrEqual(190);
  });
});
