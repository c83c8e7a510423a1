/**
 * The local stand-in for SQS and its Lambda event sources, for `npm start` and the tests
 * (docs/local-queue.md). The queues of lib/queue/queues.json are kept in one SQLite file
 * (local-queue/store.ts), so that what a send acknowledged survives a SIGKILL of the whole process
 * group, and served on 127.0.0.1 in SQS's own JSON protocol (local-queue/sqs-api.ts), so that the
 * functions use the deployed adapter, lib/queue/sqs-queue.ts, given queue URLs
 * `http://127.0.0.1:PORT/000000000000/<queue>`. Beside the protocol, for people and tests:
 * GET /idle and GET /queues/{name}/messages.
 *
 * A poller plays the part of the Lambda event sources: it receives batches and invokes the
 * functions — through serverless offline's Lambda endpoint under `npm start`, or any `invoke`
 * function (tests call the handlers directly) — several invocations at once, so a consumer that
 * hangs holds up only its own batch. It deletes what the function does not report in
 * `batchItemFailures`; a failed invocation's batch comes back after the visibility time-out, as
 * with SQS. An invocation that could not be made at all (offline's endpoint refused the
 * connection: nothing ran) is made again promptly, as Lambda's event source retries it.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import {
  type Consumer,
  DEFAULT_CONSUMERS,
  type Invoke,
  sqsEvent as lambdaSqsEvent,
  NotInvokedError,
  POLLED,
  type PolledQueue,
  pollQueues,
} from '../lib/queue/event-source';
import type { QueueName } from '../lib/queue/queue-port';
import type queueSettings from '../lib/queue/queues.json';
import { answerSqs, arn, LOCAL_ACCOUNT, type SqsApiContext } from './local-queue/sqs-api';
import { openQueueStore, type SendEntry, type StoredMessage } from './local-queue/store';

export type { Consumer, Invoke, QueueName };
export { DEFAULT_CONSUMERS, NotInvokedError };

/**
 * The queues and their settings, as serverless.yml declares them to SQS and the functions name them.
 * Read with require: an ES module's JSON import needs an import attribute TypeScript's bundler mode refuses.
 */
const QUEUES: typeof queueSettings = createRequire(import.meta.url)('../lib/queue/queues.json');
export const QUEUE_NAMES = Object.keys(QUEUES) as QueueName[];
/** SQS's default visibility time-out, for a queue no event source reads. */
const DEFAULT_VISIBILITY_MS = 30_000;

/** The functions' environment for a local queue: its queue URL variables and AWS_ENDPOINT_URL_SQS. */
export type QueueEnv = Record<string, string>;

/**
 * The variables the functions read their queue URLs from (serverless.yml maps them on the local
 * stage), for a local queue at `url`; and the SQS endpoint the AWS SDK reads by itself, so that
 * its client's endpoint is the queue URLs' host, as in AWS (else it warns at every call).
 */
export function queueEnv(url: string): QueueEnv {
  return {
    ...Object.fromEntries(
      QUEUE_NAMES.map((name) => [QUEUES[name].urlVariable, `${url}/${LOCAL_ACCOUNT}/${name}`]),
    ),
    AWS_ENDPOINT_URL_SQS: url,
  };
}

/** The event an SQS event source gives a Lambda, from the queue named `queueName`. */
export const sqsEvent = (queueName: string, messages: Parameters<typeof lambdaSqsEvent>[1]) =>
  lambdaSqsEvent(arn(queueName), messages);
export type SqsLikeEvent = ReturnType<typeof sqsEvent>;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Invokes the functions through serverless offline's Lambda endpoint (serverless-offline 14:
 * POST /2015-03-31/functions/{name}/invocations, name `${service}-${stage}-${key}` of the local stage).
 */
export function lambdaInvoker({ port }: { port: number }) {
  return async (functionKey: string, event: unknown): Promise<unknown> => {
    const name = `ocloud-notifications-local-${functionKey}`;
    const response = await fetch(`http://127.0.0.1:${port}/2015-03-31/functions/${name}/invocations`, {
      method: 'POST',
      headers: { 'x-amz-invocation-type': 'RequestResponse' },
      body: JSON.stringify(event),
      signal: AbortSignal.timeout(360_000),
    }).catch((error) => {
      const code = error?.cause?.code;
      if (code !== 'ECONNREFUSED') throw error;
      throw new NotInvokedError(`127.0.0.1:${port} refused the connection (${code})`, { cause: error });
    });
    const text = await response.text();
    if (response.status === 404) {
      throw new Error(`function ${name} does not exist: is ${functionKey} declared in serverless.yml?`);
    }
    if (response.status !== 200 || response.headers.get('x-amz-function-error')) {
      throw new Error(`function ${name} failed (HTTP ${response.status}): ${text.slice(0, 500)}`);
    }
    return text ? JSON.parse(text) : null;
  };
}

/** A message put on the dead-letter queue: sent there, or moved by the redrive policy from `deadLetterSourceQueue`. */
export interface DeadLetterNotice {
  body: string;
  deadLetterSourceQueue: string | undefined;
}

export interface LocalQueueOptions {
  /** 0 or undefined: a free port. */
  port?: number;
  /** The SQLite file; undefined: a new temporary file, removed on stop. */
  path?: string;
  consumers?: Consumer[];
  onDeadLetter?: (message: DeadLetterNotice) => void;
  /** Problems of the poller (default console.error). */
  log?: (text: string) => void;
}

const isQueue = (name: string | undefined): name is QueueName => QUEUE_NAMES.includes(name as QueueName);

/** Opens the queues and serves them. The poller starts with `startPolling(invoke)`. */
export async function startLocalQueue({
  port = 0,
  path,
  consumers = DEFAULT_CONSUMERS,
  onDeadLetter,
  log = (text) => console.error(text),
}: LocalQueueOptions = {}) {
  const file = path ?? join(tmpdir(), `ocloud-queue-${process.pid}-${randomUUID()}.db`);
  // A temporary queue dies with its process: its sends need no fsync (local-queue/store.ts).
  const store = openQueueStore(file, { durable: path !== undefined });
  const consumerOf = (name: string) => consumers.find((consumer) => consumer.queue === name);

  /** The pollers, once started: woken when messages arrive or become visible. */
  let poller: ReturnType<typeof pollQueues> | undefined;
  const wake = () => poller?.wake();

  const send = (name: string, entries: SendEntry[]) => {
    const ids = store.send(name, entries);
    if (name === 'dead-letter')
      for (const { body } of entries) onDeadLetter?.({ body, deadLetterSourceQueue: undefined });
    wake();
    return ids;
  };

  /** Receives as SQS does, with its redrive policy: too many receives → the dead-letter queue, body unchanged. */
  const receive = (name: string, max: number, visibilityMs: number): StoredMessage[] => {
    const consumer = consumerOf(name);
    const redrive = consumer && { maxReceiveCount: consumer.maxReceiveCount, deadLetterQueue: 'dead-letter' };
    const { received, moved } = store.receive(name, max, visibilityMs, redrive);
    for (const { body } of moved) onDeadLetter?.({ body, deadLetterSourceQueue: name });
    return received;
  };

  const api: SqsApiContext = {
    store,
    queues: QUEUE_NAMES,
    visibilityMs: (name) => consumerOf(name)?.visibilityMs ?? DEFAULT_VISIBILITY_MS,
    receive,
    send,
    changed: wake,
  };

  /** Each queue's messages, and how many of them are visible (the rest are hidden). */
  const counts = () => {
    const now = store.counts();
    return Object.fromEntries(
      QUEUE_NAMES.map((name) => {
        const { total = 0, visible = 0 } = now.find((row) => row.queue === name) ?? {};
        return [name, { total, visible }];
      }),
    ) as Record<QueueName, { total: number; visible: number }>;
  };
  /** True when the polled queues are empty and no invocation is running; GET /idle answers the same. */
  const idle = () => {
    const now = counts();
    return (poller?.running ?? 0) === 0 && POLLED.every((name) => now[name].total === 0);
  };

  const answerAdmin = (url: string) => {
    const [, first, name, action] = url.split('/');
    if (url === '/idle') return { status: 200, body: { idle: idle(), queues: counts() } };
    if (first === 'queues' && isQueue(name) && action === 'messages') {
      return { status: 200, body: { messages: store.messages(name) } };
    }
    return { status: 404, body: { error: 'GET /idle or /queues/{name}/messages' } };
  };

  const server = http.createServer(async (req, res) => {
    const target = req.headers['x-amz-target'];
    let answer: { status: number; body: unknown };
    try {
      answer =
        typeof target === 'string' ? answerSqs(api, target, await text(req)) : answerAdmin(req.url ?? '/');
    } catch (error) {
      answer = { status: 500, body: { error: messageOf(error) } };
    }
    const type = typeof target === 'string' ? 'application/x-amz-json-1.0' : 'application/json';
    res.writeHead(answer.status, { 'content-type': type }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  /** Starts invoking the functions. */
  const startPolling = (invoke: Invoke) => {
    poller = pollQueues({
      consumers,
      store: {
        receive: (name: PolledQueue, max, visibilityMs) => receive(name, max, visibilityMs),
        deleteAll: (name, handles) => store.deleteAll(name, handles),
        nextVisibleAt: (name) => store.nextVisibleAt(name),
      },
      invoke,
      queueArn: arn,
      log,
    });
  };

  return {
    /** The endpoint: SQS's JSON protocol at POST /, the queue URLs below it. */
    url,
    /** The SQLite file. */
    path: file,
    /** The queue URLs, as the functions' environment (serverless.yml maps them on the local stage). */
    env: queueEnv(url),
    startPolling,
    send: (name: QueueName, messages: SendEntry[]) => send(name, messages),
    /** Every message of a queue, visible or not. */
    messages: (name: QueueName) => store.messages(name),
    /** The bodies on the dead-letter queue, parsed when they are JSON. */
    deadLetters: (): unknown[] =>
      store.messages('dead-letter').map((message) => {
        try {
          return JSON.parse(message.body);
        } catch {
          return message.body;
        }
      }),
    counts,
    idle,
    async stop() {
      await poller?.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      store.close();
      if (!path) for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    },
  };
}
export type LocalQueue = Awaited<ReturnType<typeof startLocalQueue>>;
