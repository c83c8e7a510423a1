/**
 * The exact budgets' harness: the product's own SDK clients (documentClient(), sqsClient(),
 * kmsClient()) recorded by bench/aws-calls.mjs, the local queue of `npm start` without its poller
 * (each queue is drained here, batch by batch, as Lambda's event source does it: ReceiveMessage up
 * to 10, the function, DeleteMessageBatch of the successes, through a client of its own that is
 * recorded too, since those requests are billed), a stand-in KMS (KMS cannot run here) so that
 * the deployed signing-key path (SIGNING_KEY_SOURCE=kms) is the one counted, and a consumer that
 * notes when each notification's first byte arrives.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll } from 'vitest';
import {
  type AwsCall,
  currentInvocation,
  type Invocation,
  inInvocation,
  now,
  recordAwsCalls,
} from '../../bench/aws-calls.mjs';
import { handler as deliverHandler } from '../../functions/queue/deliver';
import { handler as fanOutHandler } from '../../functions/queue/fan-out';
import { handler as removeRetiredHandler } from '../../functions/queue/remove-retired-subscriptions';
import { sqsClient } from '../../lib/queue/sqs-queue';
import { kmsClient } from '../../lib/secrets/kms-data-key';
import { documentClient } from '../../lib/store/dynamo-client';
import {
  type LocalQueue,
  type QueueEnv,
  type QueueName,
  sqsEvent,
  startLocalQueue,
} from '../../scripts/local-queue';
import { lambdaContext } from '../support/http-event';

type QueueHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** Each polled queue's function, as serverless.yml wires them (batch sizes: lib/queue/queues.json's consumers). */
const FUNCTIONS = {
  'fan-out': { name: 'fanOut', handler: fanOutHandler, batchSize: 10, url: 'FANOUT_QUEUE_URL' },
  delivery: { name: 'deliver', handler: deliverHandler, batchSize: 10, url: 'DELIVERY_QUEUE_URL' },
  cleanup: {
    name: 'removeRetiredSubscriptions',
    handler: removeRetiredHandler,
    batchSize: 1,
    url: 'CLEANUP_QUEUE_URL',
  },
} satisfies Record<string, { name: string; handler: QueueHandler; batchSize: number; url: keyof QueueEnv }>;
export type PolledQueue = keyof typeof FUNCTIONS;

/** The event source's own requests are tagged with this suffix on the function's name. */
export const EVENT_SOURCE = ' (event source)';

/** A stand-in for KMS: GenerateDataKey wraps a random key by prefixing it, Decrypt unwraps it. */
async function startStandInKms(): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      const target = String(req.headers['x-amz-target']);
      const input = JSON.parse(raw) as { CiphertextBlob?: string };
      const wrap = (key: Buffer) => Buffer.concat([Buffer.from('stand-in:'), key]);
      const key = randomBytes(32);
      const body = target.endsWith('GenerateDataKey')
        ? { Plaintext: key.toString('base64'), CiphertextBlob: wrap(key).toString('base64') }
        : {
            Plaintext: Buffer.from(input.CiphertextBlob ?? '', 'base64')
              .subarray(9)
              .toString('base64'),
          };
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** A consumer on 127.0.0.1 answering 204, noting when each request's first byte arrived. */
async function startTimedConsumer() {
  const firstBytes: number[] = [];
  const server = http.createServer((req, res) => {
    firstBytes.push(now());
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/events`, firstBytes, server };
}

/**
 * A queue function's context: 60 s left throughout, fan-out's time-out (serverless.yml). Its
 * hand-over when less than 5 s remain follows this machine's speed, so the count holds it off;
 * its hand-over after 10 pages happens as in AWS.
 */
const queueContext = () => ({ ...lambdaContext(), getRemainingTimeInMillis: () => 60_000 });

export interface BudgetHarness {
  recording: ReturnType<typeof recordAwsCalls>;
  /** The function invocations run since the last reset (not the event sources'). */
  invocations: Invocation[];
  /** Forgets the calls, invocations and first bytes so far. */
  reset(): void;
  queue: LocalQueue;
  consumer: Awaited<ReturnType<typeof startTimedConsumer>>;
  /** Runs `call` as one invocation of the function `name`. */
  invoke<T>(name: string, call: () => Promise<T>): Promise<T>;
  /**
   * Runs the queue's function until the queue is empty, each invocation on the next batch of up to
   * its batch size; throws if a record failed. One invocation at a time, as a Lambda instance
   * runs them: invocations side by side in one process would share the requests the deliverer
   * coalesces, which in AWS only an invocation's own records do.
   */
  drain(queue: PolledQueue): Promise<void>;
  /** Drains every polled queue, fan-out first, until all are empty. */
  drainAll(): Promise<void>;
}

const SETTINGS = ['SIGNING_KEY_SOURCE', 'SIGNING_KMS_KEY_ID', 'AWS_ENDPOINT_URL_KMS'] as const;

/** Call at the top level of a test file, before anything reads the configuration. */
export function useBudgetHarness(): () => BudgetHarness {
  let harness: BudgetHarness | undefined;
  let kms: http.Server | undefined;
  let eventSource: SQSClient | undefined;
  const saved = { ...process.env };
  beforeAll(async () => {
    kms = await startStandInKms();
    const queue = await startLocalQueue({ port: 0, log: () => undefined });
    Object.assign(process.env, queue.env, {
      SIGNING_KEY_SOURCE: 'kms',
      SIGNING_KMS_KEY_ID: 'arn:aws:kms:us-east-1:000000000000:key/stand-in',
      AWS_ENDPOINT_URL_KMS: `http://127.0.0.1:${(kms.address() as AddressInfo).port}`,
    });
    eventSource = new SQSClient({ endpoint: queue.url });
    const recording = recordAwsCalls(documentClient(), sqsClient(), kmsClient(), eventSource);
    const consumer = await startTimedConsumer();
    const source = eventSource;
    const invocations: Invocation[] = [];
    const invoke = <T>(name: string, call: () => Promise<T>) =>
      inInvocation(name, () => {
        const invocation = currentInvocation();
        if (invocation) invocations.push(invocation);
        return call();
      });
    const drain = async (name: PolledQueue) => {
      const fn = FUNCTIONS[name];
      const QueueUrl = queue.env[fn.url];
      for (;;) {
        let poll: Invocation | undefined;
        const { Messages = [] } = await inInvocation(fn.name + EVENT_SOURCE, () => {
          poll = currentInvocation();
          return source.send(
            new ReceiveMessageCommand({
              QueueUrl,
              MaxNumberOfMessages: fn.batchSize,
              MessageSystemAttributeNames: ['All'],
            }),
          );
        });
        if (Messages.length === 0) {
          // The pollers' empty receives are what an idle queue costs (docs/deploy.md), not a
          // notification: this drain's last one is left out of the count.
          const empty = recording.calls.findIndex((call) => call.invocation === poll);
          if (empty >= 0) recording.calls.splice(empty, 1);
          return;
        }
        const event = sqsEvent(
          name,
          Messages.map((m) => ({
            messageId: m.MessageId ?? '',
            receiptHandle: m.ReceiptHandle ?? '',
            body: m.Body ?? '',
            receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 1),
            sentAt: Number(m.Attributes?.SentTimestamp ?? Date.now()),
            firstReceivedAt: Number(m.Attributes?.ApproximateFirstReceiveTimestamp ?? Date.now()),
          })) as Parameters<typeof sqsEvent>[1],
        ) as unknown as SQSEvent;
        const result = await invoke(fn.name, () => fn.handler(event, queueContext()));
        const failed = result.batchItemFailures.map((failure) => failure.itemIdentifier);
        if (failed.length > 0) throw new Error(`${fn.name} failed ${failed.length} record(s)`);
        await inInvocation(fn.name + EVENT_SOURCE, () =>
          source.send(
            new DeleteMessageBatchCommand({
              QueueUrl,
              Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
            }),
          ),
        );
      }
    };
    harness = {
      recording,
      queue,
      consumer,
      invocations,
      reset() {
        recording.reset();
        invocations.length = 0;
        consumer.firstBytes.length = 0;
      },
      invoke,
      drain,
      async drainAll() {
        const polled: PolledQueue[] = ['fan-out', 'delivery', 'cleanup'];
        const busy = () => polled.some((name) => queue.messages(name as QueueName).length > 0);
        for (let round = 0; busy(); round++) {
          if (round === 10) throw new Error('the queues never emptied (a delayed retry?)');
          for (const name of polled) await drain(name);
        }
      },
    };
  });
  afterAll(async () => {
    eventSource?.destroy();
    if (harness) {
      const { consumer } = harness;
      harness.recording.stop();
      consumer.server.closeAllConnections();
      await new Promise((resolve) => consumer.server.close(resolve));
      await harness.queue.stop();
    }
    const standIn = kms;
    if (standIn) {
      standIn.closeAllConnections();
      await new Promise((resolve) => standIn.close(resolve));
    }
    for (const name of [...SETTINGS, ...Object.keys(harness?.queue.env ?? {})]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });
  return () => {
    if (!harness) throw new Error('the budget harness is not running yet');
    return harness;
  };
}

/** The calls of the invocations of `name` (the event source's excluded). */
export const callsOf = (calls: readonly AwsCall[], name: string) =>
  calls.filter((call) => call.invocation?.name === name);
