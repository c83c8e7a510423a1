/**
 * The local queue's SQS semantics: its protocol spoken by the AWS SDK's own client and by the
 * deployed adapter, its file on disk, and its poller.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { recordAwsCalls } from '../../bench/aws-calls.mjs';
import { SqsQueue, sqsClient } from '../../lib/queue/sqs-queue';
import { freePort } from '../../scripts/dynamodb-local';
import {
  type LocalQueue,
  lambdaInvoker,
  type SqsLikeEvent,
  startLocalQueue,
} from '../../scripts/local-queue';

let queue: LocalQueue | undefined;
afterEach(async () => {
  await queue?.stop();
  queue = undefined;
});

async function start(options: Parameters<typeof startLocalQueue>[0] = {}) {
  queue = await startLocalQueue({ log: () => undefined, ...options });
  return queue;
}

const sqsClients: SQSClient[] = [];
afterEach(() => {
  for (const client of sqsClients.splice(0)) client.destroy();
});

/** The AWS SDK's own SQS client: a second, independent speaker of the protocol. */
function sdk(q: LocalQueue) {
  const client = new SQSClient({
    endpoint: q.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  sqsClients.push(client);
  return client;
}

/** One SendMessageBatch: the adapter's only way of sending. */
const send = (client: SQSClient, QueueUrl: string | undefined, ...bodies: string[]) =>
  client.send(
    new SendMessageBatchCommand({
      QueueUrl,
      Entries: bodies.map((MessageBody, i) => ({ Id: String(i), MessageBody })),
    }),
  );

const receive = async (q: LocalQueue, max = 10, visibilitySeconds = 30) =>
  (
    await sdk(q).send(
      new ReceiveMessageCommand({
        QueueUrl: q.env.DELIVERY_QUEUE_URL,
        MaxNumberOfMessages: max,
        VisibilityTimeout: visibilitySeconds,
        MessageSystemAttributeNames: ['All'],
      }),
    )
  ).Messages ?? [];

describe('local queue: the SQS actions the service and the event sources use, spoken by the AWS SDK', () => {
  it('hides a received message for its visibility time-out and counts receives', async () => {
    const q = await start();
    const url = q.env.DELIVERY_QUEUE_URL;
    const sent = await send(sdk(q), url, 'a');
    const [first] = await receive(q, 10, 1);
    expect(first).toMatchObject({ MessageId: sent.Successful?.[0]?.MessageId, Body: 'a' });
    expect(first?.Attributes?.ApproximateReceiveCount).toBe('1');
    expect(await receive(q)).toEqual([]);
    await vi.waitFor(async () => expect(await receive(q)).toHaveLength(1), { timeout: 3000, interval: 100 });
    expect(q.messages('delivery')[0]).toMatchObject({ messageId: first?.MessageId, receiveCount: 2 });
    expect(q.messages('delivery')[0]?.receiptHandle).not.toBe(first?.ReceiptHandle);
  });

  it('sends a batch, delays its entries and deletes by the latest receipt handle only', async () => {
    const q = await start();
    const url = q.env.DELIVERY_QUEUE_URL;
    const batch = await sdk(q).send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: [
          { Id: 'now', MessageBody: 'now' },
          { Id: 'later', MessageBody: 'later', DelaySeconds: 1 },
        ],
      }),
    );
    expect(batch.Successful?.map((entry) => entry.Id)).toEqual(['now', 'later']);
    expect(batch.Failed ?? []).toEqual([]);
    const [now] = await receive(q, 10, 0);
    expect(now?.Body).toBe('now');
    const [again] = await receive(q, 10, 30);
    expect(again?.Body).toBe('now');
    const deleteBatch = (...handles: (string | undefined)[]) =>
      sdk(q).send(
        new DeleteMessageBatchCommand({
          QueueUrl: url,
          Entries: handles.map((ReceiptHandle, i) => ({ Id: String(i), ReceiptHandle })),
        }),
      );
    // A receipt handle older than the latest deletes nothing, as in SQS.
    expect((await deleteBatch(now?.ReceiptHandle)).Successful).toEqual([{ Id: '0' }]);
    expect(q.messages('delivery')).toHaveLength(2);
    await deleteBatch(again?.ReceiptHandle);
    expect(q.messages('delivery').map((m) => m.body)).toEqual(['later']);
    expect(await receive(q)).toEqual([]);
    const later = await vi.waitFor(
      async () => {
        const [message] = await receive(q);
        if (!message) throw new Error('not visible yet');
        return message;
      },
      { timeout: 3000, interval: 100 },
    );
    expect(later.Body).toBe('later');
  });

  it('changes the visibility of a received message and refuses a stale receipt handle', async () => {
    const q = await start();
    const url = q.env.DELIVERY_QUEUE_URL;
    await send(sdk(q), url, 'x');
    const [message] = await receive(q, 1, 60);
    await sdk(q).send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: url,
        ReceiptHandle: message?.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    const [latest] = await receive(q, 1, 60);
    expect(latest?.MessageId).toBe(message?.MessageId);
    await expect(
      sdk(q).send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: url,
          ReceiptHandle: message?.ReceiptHandle,
          VisibilityTimeout: 5,
        }),
      ),
    ).rejects.toMatchObject({ name: 'ReceiptHandleIsInvalid' });
    // The stale handle changed nothing: the message is still hidden for the latest receive's 60 s.
    expect(await receive(q)).toEqual([]);
  });

  it('answers QueueDoesNotExist, and refuses what SQS refuses: over ten a batch, over 1 MiB its bodies', async () => {
    const q = await start();
    const url = q.env.FANOUT_QUEUE_URL;
    await expect(send(sdk(q), `${q.url}/000000000000/nope`, 'x')).rejects.toMatchObject({
      name: 'QueueDoesNotExist',
    });
    await expect(send(sdk(q), url, ...Array(11).fill('x'))).rejects.toMatchObject({
      name: 'TooManyEntriesInBatchRequest',
    });
    const half = 'x'.repeat(512 * 1024);
    await expect(send(sdk(q), url, half, `${half}x`)).rejects.toMatchObject({ name: 'BatchRequestTooLong' });
    await expect(
      sdk(q).send(
        new SendMessageBatchCommand({
          QueueUrl: url,
          Entries: [{ Id: '0', MessageBody: 'x', DelaySeconds: 901 }],
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    expect(q.messages('fan-out')).toEqual([]);
    await send(sdk(q), url, half, half);
    expect(q.messages('fan-out')).toHaveLength(2);
  });

  it('takes what the deployed adapter (lib/queue/sqs-queue.ts) sends, as the SDK reads it', async () => {
    const q = await start();
    const adapter = new SqsQueue({ delivery: q.env.DELIVERY_QUEUE_URL });
    const bodies = Array.from({ length: 25 }, (_, i) => ({ body: `m${i}` }));
    const recording = recordAwsCalls(sqsClient());
    await adapter.send('delivery', bodies).finally(recording.stop);
    expect(recording.calls.map((call) => call.command)).toEqual(Array(3).fill('SendMessageBatch'));
    const received = [];
    for (let batch = await receive(q); batch.length > 0; batch = await receive(q)) received.push(...batch);
    // Its batches go out in parallel: as from SQS standard queues, no order across them.
    expect(received.map((m) => m.Body).sort()).toEqual(bodies.map((b) => b.body).sort());
    // The adapter's back-off, read back through the SDK: hidden, then visible again after it.
    const [first] = received;
    await adapter.changeVisibility('delivery', first?.ReceiptHandle ?? '', 0);
    expect((await receive(q, 1))[0]?.MessageId).toBe(first?.MessageId);
  });
});

describe('local queue: kept on disk', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'local-queue-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps what a send acknowledged through a SIGKILL of the process that holds the queue', async () => {
    const path = join(dir, 'queue.db');
    // A child process runs the queue; the kill comes right after the send was answered.
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { startLocalQueue } from ${JSON.stringify(new URL('../../scripts/local-queue.ts', import.meta.url).href)};
         const q = await startLocalQueue({ path: ${JSON.stringify(path)} });
         console.log(q.url);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
        child.once('exit', (code) => reject(new Error(`the queue process exited (${code})`)));
      });
      const client = new SQSClient({
        endpoint: url,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      sqsClients.push(client);
      const QueueUrl = `${url}/000000000000/delivery`;
      const entries = Array.from({ length: 10 }, (_, i) => ({ Id: String(i), MessageBody: `kept ${i}` }));
      await client.send(new SendMessageBatchCommand({ QueueUrl, Entries: entries }));
      const [received] =
        (
          await client.send(
            new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 1, VisibilityTimeout: 300 }),
          )
        ).Messages ?? [];
      expect(received?.Body).toBe('kept 0');
      await send(client, QueueUrl, 'last, then the kill');
      child.kill('SIGKILL');
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    }
    const q = await start({ path });
    // All eleven, in the order sent; the one the dead process had received is visible again at once.
    expect(q.messages('delivery').map((m) => m.body)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `kept ${i}`),
      'last, then the kill',
    ]);
    expect(q.counts().delivery).toMatchObject({ total: 11, visible: 11 });
  });

  it('keeps a retry’s back-off across a restart, and brings back at once what an invocation held', async () => {
    const path = join(dir, 'queue.db');
    let q = await start({ path });
    q.send('delivery', [{ body: 'retrying' }, { body: 'held' }]);
    const [retrying, held] = await receive(q, 2, 300);
    // The function set the back-off of one and was still at work on the other when the process stopped.
    await new SqsQueue({ delivery: q.env.DELIVERY_QUEUE_URL }).changeVisibility(
      'delivery',
      retrying?.ReceiptHandle ?? '',
      60_000,
    );
    await q.stop();
    queue = undefined;
    q = await start({ path });
    const byBody = Object.fromEntries(q.messages('delivery').map((m) => [m.body, m]));
    expect(byBody.held?.visibleAt).toBeLessThanOrEqual(Date.now());
    expect(byBody.retrying?.visibleAt).toBeGreaterThan(Date.now() + 50_000);
    expect(held?.Body).toBe('held');
  });
});

describe('npm run dead-letters', () => {
  const run = (path: string, ...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'scripts/dead-letters.ts', ...args], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: { ...process.env, LOCAL_QUEUE_FILE: path },
      encoding: 'utf8',
    });

  it('lists what the redrive policy moved and puts it back on the queue it came from', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dead-letters-'));
    try {
      const path = join(dir, 'queue.db');
      expect(run(path).stdout).toMatch(/No local queue yet/);
      const q = await start({
        path,
        consumers: [
          {
            queue: 'fan-out',
            functionKey: 'fanOut',
            batchSize: 1,
            visibilityMs: 0,
            concurrency: 1,
            maxReceiveCount: 2,
          },
        ],
      });
      const event = { id: 'e-1', type: 'event.sync.ptp-status.ptp-state-change', source: '/s', time: 't' };
      q.send('fan-out', [{ body: JSON.stringify({ kind: 'fan-out', resourceAddress: '/c/s/n', event }) }]);
      q.startPolling(async () => {
        throw new Error('the function fails every time');
      });
      await vi.waitFor(() => expect(q.messages('dead-letter')).toHaveLength(1));
      const [letter] = q.messages('dead-letter');

      const listed = run(path);
      expect(listed.status).toBe(0);
      expect(listed.stdout).toContain(`${letter?.messageId}  dead-lettered`);
      expect(listed.stdout).toContain(
        "reason:       received 2 times on the fan-out queue without success (its redrive policy's maxReceiveCount)",
      );
      expect(listed.stdout).toContain(
        'event:        event.sync.ptp-status.ptp-state-change from /s (id e-1, time t) at /c/s/n',
      );

      expect(run(path, '--redrive', 'no-such-id')).toMatchObject({
        status: 1,
        stderr: expect.stringContaining('no dead letter no-such-id'),
      });
      expect(run(path, 'stray').status).toBe(2);
      await q.stop();
      queue = undefined;
      const redriven = run(path, '--redrive');
      expect(redriven.stdout).toContain(`redriven ${letter?.messageId} to the fan-out queue`);
      const reopened = await start({ path });
      expect(reopened.messages('dead-letter')).toEqual([]);
      expect(reopened.messages('fan-out')).toMatchObject([{ messageId: letter?.messageId, receiveCount: 0 }]);
      expect(run(path).stdout).toMatch(/^No dead letters\./);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('says what a moved pack or clean-up job was for, and redrives each to its own queue', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dead-letters-'));
    try {
      const path = join(dir, 'queue.db');
      const failing = (queue: 'delivery' | 'cleanup', functionKey: string) => ({
        queue,
        functionKey,
        batchSize: 1,
        visibilityMs: 0,
        concurrency: 1,
        maxReceiveCount: 1,
      });
      const q = await start({
        path,
        consumers: [failing('delivery', 'deliver'), failing('cleanup', 'removeRetiredSubscriptions')],
      });
      const event = { id: 'e-1', type: 'event.sync.ptp-status.ptp-state-change', source: '/s', time: 't' };
      const pack = {
        kind: 'deliveries',
        events: [{ resourceAddress: '/c/s/n', event }],
        deliveries: [
          { subscriptionId: 's-1', event: 0 },
          { subscriptionId: 's-2', event: 0 },
        ],
      };
      q.send('delivery', [{ body: JSON.stringify(pack) }]);
      q.send('cleanup', [
        {
          body: JSON.stringify({
            kind: 'remove-retired',
            owner: 'alice',
            fromGeneration: 1,
            toGeneration: 2,
          }),
        },
      ]);
      q.startPolling(async () => {
        throw new Error('the function fails every time');
      });
      await vi.waitFor(() => expect(q.messages('dead-letter')).toHaveLength(2));
      await q.stop();
      queue = undefined;

      const listed = run(path).stdout;
      expect(listed).toContain('message:      a pack of 2 notification(s) of 1 event(s), from a fan-out');
      expect(listed).toContain(
        "message:      delete-all's clean-up of alice's subscriptions of generations 1 to 2",
      );
      expect(listed).not.toContain('unreadable');
      const redriven = run(path, '--redrive').stdout;
      expect(redriven).toContain('to the delivery queue');
      expect(redriven).toContain('to the cleanup queue');
      expect(redriven).toContain('2 redriven.');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
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

  it('retries promptly an invocation that could not be made, without hiding its batch or spending a receive', async () => {
    // serverless offline's Lambda endpoint not listening (yet, or any more): the connection is
    // refused, nothing ran. The fan-out queue's own visibility time-out (lib/queue/queues.json) applies.
    const port = await freePort();
    const logs: string[] = [];
    const q = await start({ log: (text) => logs.push(text) });
    q.startPolling(lambdaInvoker({ port }));
    q.send('fan-out', [{ body: '{}' }]);
    await vi.waitFor(() => expect(logs.join('\n')).toMatch(/fanOut/), { timeout: 5000, interval: 20 });

    const invoked: SqsLikeEvent[] = [];
    const endpoint = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => {
        raw += chunk;
      });
      req.on('end', () => {
        invoked.push(JSON.parse(raw) as SqsLikeEvent);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"batchItemFailures":[]}');
      });
    });
    endpoint.listen(port, '127.0.0.1');
    await once(endpoint, 'listening');
    try {
      await vi.waitFor(() => expect(q.idle()).toBe(true), { timeout: 10_000, interval: 50 });
    } finally {
      endpoint.close();
    }
    expect(invoked).toHaveLength(1);
    expect(invoked[0]?.Records[0]?.attributes.ApproximateReceiveCount).toBe('1');
    expect(logs.join('\n')).toMatch(/could not invoke fanOut.*ECONNREFUSED.*nothing ran/);
  });
});
