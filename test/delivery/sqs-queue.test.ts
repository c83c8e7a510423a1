/** The SQS adapter's batching and visibility arithmetic, against a stand-in client (no SQS here). */
import { describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../lib/errors';
import type { SqsCall } from '../../lib/queue/sqs-client';
import { SqsQueue, type SqsSend, toSeconds } from '../../lib/queue/sqs-queue';

type Batch = Extract<SqsCall, { action: 'SendMessageBatch' }>['input'];
type Visibility = Extract<SqsCall, { action: 'ChangeMessageVisibility' }>['input'];

const URLS = { 'fan-out': 'https://sqs/fan', delivery: 'https://sqs/del', 'dead-letter': 'https://sqs/dlq' };

function fakeSqs(respond: (batch: Batch, call: number) => Awaited<ReturnType<SqsSend>> = () => ({})) {
  const batches: Batch[] = [];
  const visibility: Visibility[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const send: SqsSend = async (call) => {
    if (call.action === 'ChangeMessageVisibility') {
      visibility.push(call.input);
      return {};
    }
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 5));
    inFlight -= 1;
    batches.push(call.input);
    return respond(call.input, batches.length);
  };
  return { send, batches, visibility, maxInFlight: () => maxInFlight };
}

describe('SqsQueue.send', () => {
  it('sends 10 per SendMessageBatch call, the calls in parallel', async () => {
    const sqs = fakeSqs();
    const messages = Array.from({ length: 1005 }, (_, i) => ({ body: `m${i}` }));
    await new SqsQueue(URLS, sqs.send).send('delivery', messages);
    expect(sqs.batches).toHaveLength(101);
    expect(sqs.batches.every((b) => b.QueueUrl === URLS.delivery && b.Entries.length <= 10)).toBe(true);
    const bodies = sqs.batches.flatMap((b) => b.Entries.map((e) => e.MessageBody));
    expect(new Set(bodies)).toEqual(new Set(messages.map((m) => m.body)));
    expect(sqs.maxInFlight()).toBeGreaterThan(1);
    expect(sqs.maxInFlight()).toBeLessThanOrEqual(25);
  });

  it('rounds a delay up to whole seconds, at most 15 minutes', async () => {
    const sqs = fakeSqs();
    await new SqsQueue(URLS, sqs.send).send('delivery', [
      { body: 'a', delayMs: 1 },
      { body: 'b', delayMs: 2500 },
      { body: 'c', delayMs: 3_600_000 },
      { body: 'd' },
    ]);
    expect(sqs.batches[0]?.Entries?.map((e) => e.DelaySeconds)).toEqual([1, 3, 900, undefined]);
  });

  it('re-sends only the entries SQS failed, then succeeds', async () => {
    const sqs = fakeSqs((_batch, call) =>
      call === 1 ? { Failed: [{ Id: '3', Code: 'InternalError', SenderFault: false }] } : {},
    );
    await new SqsQueue(URLS, sqs.send).send(
      'delivery',
      Array.from({ length: 5 }, (_, i) => ({ body: `m${i}` })),
    );
    expect(sqs.batches).toHaveLength(2);
    expect(sqs.batches[1]?.Entries).toEqual([{ Id: '3', MessageBody: 'm3' }]);
  });

  it('gives up with a 503 on a sender fault or when retries run out', async () => {
    const senderFault = fakeSqs(() => ({
      Failed: [{ Id: '0', Code: 'InvalidMessageContents', SenderFault: true }],
    }));
    await expect(
      new SqsQueue(URLS, senderFault.send).send('fan-out', [{ body: 'x' }]),
    ).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(senderFault.batches).toHaveLength(1);
    const throttled = fakeSqs(() => ({ Failed: [{ Id: '0', Code: 'Throttled', SenderFault: false }] }));
    await expect(new SqsQueue(URLS, throttled.send).send('fan-out', [{ body: 'x' }])).rejects.toThrow(
      /fan-out queue is unavailable/,
    );
    expect(throttled.batches).toHaveLength(4);
  });

  it('turns a client error into a 503 with Retry-After', async () => {
    const failing: SqsSend = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED'), { name: 'TimeoutError' });
    };
    const error = await new SqsQueue(URLS, failing).send('fan-out', [{ body: 'x' }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as ServiceUnavailableError).retryAfterSeconds).toBe(1);
  });

  it('makes no call for no messages', async () => {
    const sqs = fakeSqs();
    await new SqsQueue(URLS, sqs.send).send('delivery', []);
    expect(sqs.batches).toEqual([]);
  });
});

describe('SqsQueue.changeVisibility', () => {
  it('sets the back-off as the visibility time-out, rounded up, within 0..12 hours', async () => {
    const sqs = fakeSqs();
    const queue = new SqsQueue(URLS, sqs.send);
    await queue.changeVisibility('delivery', 'r1', 1500);
    await queue.changeVisibility('delivery', 'r2', 0);
    await queue.changeVisibility('delivery', 'r3', 24 * 3600 * 1000);
    expect(sqs.visibility).toEqual([
      { QueueUrl: URLS.delivery, ReceiptHandle: 'r1', VisibilityTimeout: 2 },
      { QueueUrl: URLS.delivery, ReceiptHandle: 'r2', VisibilityTimeout: 0 },
      { QueueUrl: URLS.delivery, ReceiptHandle: 'r3', VisibilityTimeout: 43_200 },
    ]);
  });

  it('toSeconds never shortens a wait', () => {
    expect(toSeconds(1, 900)).toBe(1);
    expect(toSeconds(1000, 900)).toBe(1);
    expect(toSeconds(1001, 900)).toBe(2);
    expect(toSeconds(-5, 900)).toBe(0);
  });
});
