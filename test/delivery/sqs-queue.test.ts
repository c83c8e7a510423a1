/**
 * The SQS adapter as deployed (lib/queue/sqs-queue.ts, the AWS SDK's SQS client inside): its
 * batching, delays and visibility against the local queue, which speaks SQS's protocol; and the
 * faults the local queue never produces (throttling, entries SQS fails on its side) against a
 * stand-in SQS on 127.0.0.1 that answers as SQS does.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordAwsCalls } from '../../bench/aws-calls.mjs';
import { ServiceUnavailableError } from '../../lib/errors';
import { SqsQueue, sqsClient } from '../../lib/queue/sqs-queue';
import { freePort } from '../../scripts/dynamodb-local';
import { type LocalQueue, startLocalQueue } from '../../scripts/local-queue';

describe('SqsQueue against the local queue', () => {
  let queue: LocalQueue;
  let adapter: SqsQueue;
  beforeAll(async () => {
    queue = await startLocalQueue({ log: () => undefined });
    adapter = new SqsQueue({ delivery: queue.env.DELIVERY_QUEUE_URL, 'fan-out': queue.env.FANOUT_QUEUE_URL });
  });
  afterAll(() => queue.stop());

  /** The SQS requests `run` makes, as the SDK client's middleware stack sees them. */
  const sqsCommands = async (run: () => Promise<void>) => {
    const recording = recordAwsCalls(sqsClient());
    try {
      await run();
      return recording.take().map((call) => call.command);
    } finally {
      recording.stop();
    }
  };

  it('sends 10 per SendMessageBatch call, the calls in parallel', async () => {
    const messages = Array.from({ length: 1005 }, (_, i) => ({ body: `m${i}` }));
    expect(await sqsCommands(() => adapter.send('fan-out', messages))).toEqual(
      Array(101).fill('SendMessageBatch'),
    );
    expect(queue.messages('fan-out').map((m) => m.body)).toEqual(
      expect.arrayContaining(messages.map((m) => m.body)),
    );
    expect(queue.messages('fan-out')).toHaveLength(1005);
  });

  it("keeps each request's bodies within SQS's 1 MiB, however few messages that is", async () => {
    // Five packs of 300 KiB: ten to a request would be 1.5 MiB, which SQS (and the local queue)
    // refuses whole.
    const messages = Array.from({ length: 5 }, (_, i) => ({ body: `${i}`.padEnd(300 * 1024, '.') }));
    await adapter.send('fan-out', messages);
    const arrived = queue.messages('fan-out').filter((m) => m.body.length === 300 * 1024);
    expect(arrived.map((m) => m.body[0]).sort()).toEqual(['0', '1', '2', '3', '4']);
  });

  it('makes no call for no messages', async () => {
    expect(await sqsCommands(() => adapter.send('delivery', []))).toEqual([]);
  });

  it('rounds a delay up to whole seconds, at most 15 minutes', async () => {
    await adapter.send('delivery', [
      { body: 'delay 1 ms', delayMs: 1 },
      { body: 'delay 2.5 s', delayMs: 2500 },
      { body: 'delay 1 h', delayMs: 3_600_000 },
      { body: 'no delay' },
    ]);
    const delays = Object.fromEntries(
      queue.messages('delivery').map((m) => [m.body, Math.round((m.visibleAt - m.sentAt) / 1000)]),
    );
    expect(delays).toMatchObject({ 'delay 1 ms': 1, 'delay 2.5 s': 3, 'delay 1 h': 900, 'no delay': 0 });
  });

  it('sets a back-off as the visibility time-out, rounded up, within 0..12 hours', async () => {
    const client = new SQSClient({ endpoint: queue.url });
    try {
      await adapter.send('delivery', [{ body: 'a' }, { body: 'b' }]);
      const { Messages = [] } = await client.send(
        new ReceiveMessageCommand({ QueueUrl: queue.env.DELIVERY_QUEUE_URL, MaxNumberOfMessages: 10 }),
      );
      const [first, second] = Messages.filter((m) => m.Body === 'a' || m.Body === 'b');
      const hiddenFor = (id: string | undefined) => {
        const message = queue.messages('delivery').find((m) => m.messageId === id);
        return Math.round(((message?.visibleAt ?? 0) - Date.now()) / 1000);
      };
      await adapter.changeVisibility('delivery', first?.ReceiptHandle ?? '', 1500);
      expect(hiddenFor(first?.MessageId)).toBe(2);
      await adapter.changeVisibility('delivery', second?.ReceiptHandle ?? '', 24 * 3600 * 1000);
      expect(hiddenFor(second?.MessageId)).toBe(43_200);
    } finally {
      client.destroy();
    }
  });

  it('answers 503 with Retry-After for a call the queue refuses', async () => {
    const error = await adapter.changeVisibility('delivery', 'no-such-receipt', 0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as ServiceUnavailableError).retryAfterSeconds).toBe(1);
    expect((error as Error).cause).toMatchObject({ name: 'ReceiptHandleIsInvalid' });
  });
});

describe('SqsQueue under SQS faults', () => {
  /** What the stand-in answers to each SendMessageBatch, in turn; then every entry is taken. */
  type Answer = (entries: { Id: string; MessageBody: string }[]) => { status: number; body: unknown };
  let script: Answer[] = [];
  let batches: string[][] = [];
  let server: Server;
  let url: string;

  const md5 = (text: string) => createHash('md5').update(text).digest('hex');
  const allTaken: Answer = (entries) => ({
    status: 200,
    body: {
      Successful: entries.map((e) => ({
        Id: e.Id,
        MessageId: `id-${e.Id}`,
        MD5OfMessageBody: md5(e.MessageBody),
      })),
    },
  });
  const throttled: Answer = () => ({
    status: 400,
    body: { __type: 'com.amazonaws.sqs#ThrottlingException', message: 'Rate exceeded' },
  });

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => {
        raw += chunk;
      });
      req.on('end', () => {
        const entries = (JSON.parse(raw) as { Entries: { Id: string; MessageBody: string }[] }).Entries;
        batches.push(entries.map((e) => e.MessageBody));
        const answer = (script.shift() ?? allTaken)(entries);
        res
          .writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0' })
          .end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/000000000000/fan-out`;
  });
  afterEach(() => {
    script = [];
    batches = [];
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('a throttled call is retried by the SDK, then succeeds', async () => {
    script = [throttled];
    await new SqsQueue({ 'fan-out': url }).send('fan-out', [{ body: 'x' }]);
    expect(batches).toEqual([['x'], ['x']]);
  });

  it('gives up after the SDK\u2019s 3 attempts: a 503 with Retry-After, the SQS error as its cause', async () => {
    script = [throttled, throttled, throttled, throttled];
    const error = await new SqsQueue({ 'fan-out': url })
      .send('fan-out', [{ body: 'x' }])
      .catch((e: unknown) => e);
    expect(batches).toHaveLength(3);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as ServiceUnavailableError).retryAfterSeconds).toBe(1);
    expect((error as Error).cause).toMatchObject({ name: 'ThrottlingException' });
  });

  it('re-sends only the entries SQS failed on its side, then succeeds', async () => {
    script = [
      (entries) => ({
        status: 200,
        body: {
          Successful: entries
            .filter((e) => e.Id !== '1')
            .map((e) => ({ Id: e.Id, MessageId: `id-${e.Id}`, MD5OfMessageBody: md5(e.MessageBody) })),
          Failed: [{ Id: '1', SenderFault: false, Code: 'InternalError', Message: 'try again' }],
        },
      }),
    ];
    await new SqsQueue({ 'fan-out': url }).send('fan-out', [{ body: 'a' }, { body: 'b' }, { body: 'c' }]);
    expect(batches).toEqual([['a', 'b', 'c'], ['b']]);
  });

  it('a sender fault is not re-sent: 503', async () => {
    script = [
      () => ({
        status: 200,
        body: { Successful: [], Failed: [{ Id: '0', SenderFault: true, Code: 'InvalidParameterValue' }] },
      }),
    ];
    const error = await new SqsQueue({ 'fan-out': url })
      .send('fan-out', [{ body: 'x' }])
      .catch((e: unknown) => e);
    expect(batches).toHaveLength(1);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
  });

  it('an unreachable queue is a 503 with Retry-After', async () => {
    const deadUrl = `http://127.0.0.1:${await freePort()}/000000000000/fan-out`; // nothing listens there
    const error = await new SqsQueue({ 'fan-out': deadUrl })
      .send('fan-out', [{ body: 'x' }])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as ServiceUnavailableError).retryAfterSeconds).toBe(1);
    expect(String((error as Error).cause)).toMatch(/ECONNREFUSED/);
  });
});
