// @ts-check
/**
 * The local stand-in for SQS and its Lambda event sources, for `npm start`, the tests and the
 * benchmark. Four queues — fan-out, delivery, dead-letter, cleanup — kept in one SQLite file
 * (local-queue/store.mjs), so that what a send acknowledged survives Ctrl-C or a SIGKILL of the
 * whole process group, and served on 127.0.0.1 in SQS's own JSON protocol (local-queue/sqs-api.mjs):
 * the functions talk to it through lib/queue/sqs-queue.ts, the adapter that is deployed, given
 * queue URLs `http://127.0.0.1:PORT/000000000000/<queue>` as configuration. Semantics as SQS
 * standard queues: delays, visibility time-outs, receive counts, receipt handles that go stale on
 * the next receive, and a redrive to the dead-letter queue after too many receives.
 *
 * Beside the protocol, for people and tests (docs/local-queue.md):
 *   GET  /idle                      {"idle": true|false, "queues": {...}}: nothing visible, hidden or being invoked
 *   GET  /queues/{name}/messages    every message of a queue, visible or not (e.g. the dead letters)
 *   POST /queues/{name}/messages    {"messages": [{"body": "...", "delayMs": 0}]}: an enqueue without signing
 *   GET  /health
 *
 * A poller plays the part of the Lambda event sources: it receives batches (fan-out 10, delivery 10)
 * and invokes the functions — through serverless offline's Lambda endpoint under `npm start`, or
 * any `invoke` function (tests call the handlers directly) — several invocations at once, so a
 * consumer that hangs holds up only its own batch. It deletes what the function does not report in
 * `batchItemFailures`; a failed invocation leaves its batch to come back after the visibility
 * time-out, as with SQS. An invocation that could not be made at all (offline's endpoint refused
 * the connection: nothing ran) is made again promptly, as Lambda's event source retries an
 * invocation it could not make. Types for TypeScript callers: local-queue.d.mts.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LOCAL_ACCOUNT, runAction, SqsApiError } from './local-queue/sqs-api.mjs';
import { openQueueStore } from './local-queue/store.mjs';

/**
 * The queues and their settings, as serverless.yml declares them to SQS and the functions name them
 * (lib/queue/queues.json).
 * @type {Record<'fan-out' | 'delivery' | 'dead-letter' | 'cleanup', { urlVariable: string, visibilityTimeoutSeconds?: number, maxReceiveCount?: number }>}
 */
const QUEUES = createRequire(import.meta.url)('../lib/queue/queues.json');
export const QUEUE_NAMES = /** @type {(keyof typeof QUEUES)[]} */ (Object.keys(QUEUES));
/** The queues an event source polls; the dead-letter queue only keeps what was given up on. */
const POLLED = ['fan-out', 'delivery', 'cleanup'];
const MAX_REQUEST_BYTES = 32 * 1024 * 1024;
/** SQS's batch calls (SendMessageBatch, DeleteMessageBatch) take at most 10 messages. */
const SQS_BATCH = 10;
/** SQS's default visibility time-out, for a queue no event source reads. */
const DEFAULT_VISIBILITY_MS = 30_000;
/** The poller looks again at least this often: `npm run dead-letters -- --redrive` writes from another process. */
const RESCAN_MS = 1000;
/** An invocation that could not be made is made again after 100 ms, 200 ms … at most 2 s apart. */
const REINVOKE_FIRST_MS = 100;
const REINVOKE_MAX_MS = 2000;

/** The function was never reached (the connection was refused): nothing ran, so nothing failed. */
export class NotInvokedError extends Error {}

/**
 * @typedef {object} Consumer
 * @property {'fan-out' | 'delivery' | 'cleanup'} queue
 * @property {string} functionKey the function's key in serverless.yml
 * @property {number} batchSize
 * @property {number} visibilityMs the queue's visibility time-out
 * @property {number} concurrency invocations at once
 * @property {number} maxReceiveCount receives after which a message is moved to the dead-letter queue
 */

/**
 * The event sources serverless.yml declares, with their queue's visibility time-out and redrive
 * budget from lib/queue/queues.json.
 * @param {'fan-out' | 'delivery' | 'cleanup'} queue
 * @param {{ functionKey: string, batchSize: number, concurrency: number }} source
 * @returns {Consumer}
 */
const eventSource = (queue, source) => ({
  queue,
  ...source,
  visibilityMs: Number(QUEUES[queue].visibilityTimeoutSeconds) * 1000,
  maxReceiveCount: Number(QUEUES[queue].maxReceiveCount),
});

/** @type {Consumer[]} */
export const DEFAULT_CONSUMERS = [
  eventSource('fan-out', { functionKey: 'fanOut', batchSize: 10, concurrency: 4 }),
  // 5, as a standard mapping starts: a batch of packs is up to 250 notifications, and every
  // invocation's store calls share one DynamoDB Local.
  eventSource('delivery', { functionKey: 'deliver', batchSize: 10, concurrency: 5 }),
  // Delete-all's background removal.
  eventSource('cleanup', { functionKey: 'removeRetiredSubscriptions', batchSize: 1, concurrency: 2 }),
];

/**
 * The variables the functions read their queue URLs from (serverless.yml maps them on the local
 * stage), for a local queue at `url`; and the SQS endpoint the AWS SDK reads by itself, so that
 * its client's endpoint is the queue URLs' host, as in AWS (else it warns at every call).
 * @param {string} url
 */
export function queueEnv(url) {
  return /** @type {Record<string, string>} */ ({
    ...Object.fromEntries(
      QUEUE_NAMES.map((name) => [QUEUES[name].urlVariable, `${url}/${LOCAL_ACCOUNT}/${name}`]),
    ),
    AWS_ENDPOINT_URL_SQS: url,
  });
}

/** @param {import('./local-queue/store.mjs').StoredMessage} message */
function view(message) {
  return {
    messageId: message.messageId,
    receiptHandle: message.receiptHandle,
    body: message.body,
    receiveCount: message.receiveCount,
    sentAt: message.sentAt,
    firstReceivedAt: message.firstReceivedAt,
    visibleAt: message.visibleAt,
    deadLetterSourceQueue: message.deadLetterSourceQueue,
  };
}

/**
 * The event an SQS event source gives a Lambda.
 * @param {string} queueName
 * @param {import("./local-queue/store.mjs").StoredMessage[]} messages
 */
export function sqsEvent(queueName, messages) {
  return {
    Records: messages.map((message) => ({
      messageId: message.messageId,
      receiptHandle: message.receiptHandle ?? '',
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queueName}`,
      awsRegion: 'us-east-1',
    })),
  };
}

/**
 * Invokes the functions through serverless offline's Lambda endpoint
 * (serverless-offline 14: POST /2015-03-31/functions/{name}/invocations, name `${service}-${stage}-${key}`).
 * @param {{ port: number, service?: string, stage?: string, timeoutMs?: number }} options
 * @returns {(functionKey: string, event: unknown) => Promise<unknown>}
 */
export function lambdaInvoker({
  port,
  service = 'ocloud-notifications',
  stage = 'local',
  timeoutMs = 360_000,
}) {
  return async (functionKey, event) => {
    const name = `${service}-${stage}-${functionKey}`;
    const response = await fetch(`http://127.0.0.1:${port}/2015-03-31/functions/${name}/invocations`, {
      method: 'POST',
      headers: { 'x-amz-invocation-type': 'RequestResponse' },
      body: JSON.stringify(event),
      signal: AbortSignal.timeout(timeoutMs),
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

/**
 * @typedef {object} LocalQueueOptions
 * @property {number} [port] 0 or undefined: a free port
 * @property {string} [path] the SQLite file; undefined: a new temporary file, removed on stop
 * @property {Consumer[]} [consumers]
 * @property {(message: { body: string, deadLetterSourceQueue: string | undefined }) => void} [onDeadLetter]
 * @property {(text: string) => void} [log] problems of the poller (default console.error)
 */

/**
 * Opens the queues and serves them. The poller starts with `startPolling(invoke)`.
 * @param {LocalQueueOptions} [options]
 */
export async function startLocalQueue({
  port = 0,
  path,
  consumers = DEFAULT_CONSUMERS,
  onDeadLetter,
  log = (text) => console.error(text),
} = {}) {
  const file = path ?? join(tmpdir(), `ocloud-queue-${process.pid}-${randomUUID()}.db`);
  // A temporary queue dies with its process: its sends need no fsync (local-queue/store.mjs).
  const store = openQueueStore(file, { durable: path !== undefined });
  /** What SQS would have been asked for, per queue: messages, and requests (its batch calls take 10). */
  const stats = Object.fromEntries(
    QUEUE_NAMES.map((name) => [
      name,
      {
        sent: 0,
        sendRequests: 0,
        received: 0,
        receiveRequests: 0,
        deleted: 0,
        deleteRequests: 0,
        visibilityChanges: 0,
      },
    ]),
  );
  const statsOf = (/** @type {string} */ name) => /** @type {(typeof stats)[string]} */ (stats[name]);
  const consumerOf = (/** @type {string} */ name) => consumers.find((consumer) => consumer.queue === name);
  /** SQS redrive policy: too many receives → the dead-letter queue, body unchanged. */
  const redrive = (/** @type {string} */ name) => {
    const consumer = consumerOf(name);
    return consumer
      ? { maxReceiveCount: consumer.maxReceiveCount, deadLetterQueue: 'dead-letter' }
      : undefined;
  };

  /** @type {Set<() => void>} wakes the pollers and long polls when messages arrive or become visible */
  const wakers = new Set();
  const wake = () => {
    for (const waker of wakers) waker();
  };

  /**
   * @param {string} name
   * @param {{ body: string, delayMs?: number }[]} messages
   * @param {number} [requests] how many SQS calls carried them
   */
  const send = (name, messages, requests = Math.ceil(messages.length / SQS_BATCH)) => {
    if (!QUEUE_NAMES.includes(/** @type {never} */ (name))) throw new Error(`no queue ${name}`);
    const ids = store.send(
      name,
      messages.map((message) => ({ body: message.body, delayMs: message.delayMs ?? 0 })),
    );
    statsOf(name).sent += messages.length;
    statsOf(name).sendRequests += requests;
    if (name === 'dead-letter')
      for (const message of messages)
        onDeadLetter?.({ body: message.body, deadLetterSourceQueue: undefined });
    wake();
    return ids;
  };

  /** @param {string} name @param {number} max @param {number} visibilityMs */
  const receive = (name, max, visibilityMs) => {
    const { received, moved } = store.receive(name, max, visibilityMs, redrive(name));
    for (const message of moved) onDeadLetter?.({ body: message.body, deadLetterSourceQueue: name });
    if (received.length > 0) {
      statsOf(name).receiveRequests += 1;
      statsOf(name).received += received.length;
    }
    return received;
  };

  /** @type {import('./local-queue/sqs-api.mjs').SqsApiContext} */
  const api = {
    store,
    queues: QUEUE_NAMES,
    visibilityMs: (name) => consumerOf(name)?.visibilityMs ?? DEFAULT_VISIBILITY_MS,
    redrive,
    receive,
    send: (name, entries) => send(name, entries, 1),
    changed: (name) => {
      statsOf(name).visibilityChanges += 1;
      wake();
    },
    waitForMessages: (ms) =>
      new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          wakers.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        wakers.add(done);
      }),
    baseUrl: '',
  };

  /** @type {Array<{ stop: () => void, running: () => number }>} */
  const pollers = [];
  /** @type {Set<Promise<void>>} */
  const running = new Set();
  const counts = () => {
    const now = store.counts();
    return Object.fromEntries(
      QUEUE_NAMES.map((name) => {
        const { total, visible } = now.get(name) ?? { total: 0, visible: 0 };
        return [name, { total, visible, hidden: total - visible }];
      }),
    );
  };
  /** True when the polled queues are empty and no invocation is running. */
  const idle = () => {
    const now = store.counts();
    return (
      pollers.every((poller) => poller.running() === 0) &&
      POLLED.every((name) => (now.get(name)?.total ?? 0) === 0)
    );
  };

  const server = http.createServer((req, res) => {
    const chunks = /** @type {Buffer[]} */ ([]);
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const target = req.headers['x-amz-target'];
      if (req.method === 'POST' && typeof target === 'string') {
        serveSqs(api, target, text, res);
        return;
      }
      serveAdmin(req.method ?? 'GET', req.url ?? '/', text, res);
    });
  });

  /**
   * @param {string} method
   * @param {string} url
   * @param {string} text
   * @param {http.ServerResponse} res
   */
  const serveAdmin = (method, url, text, res) => {
    /** @param {number} status @param {unknown} body */
    const reply = (status, body) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    try {
      const [, first, name, action] = url.split('?')[0]?.split('/') ?? [];
      if (first === 'health') return reply(200, { ok: true });
      if (first === 'idle') return reply(200, { idle: idle(), queues: counts() });
      if (first !== 'queues' || !QUEUE_NAMES.includes(/** @type {never} */ (name)) || action !== 'messages') {
        return reply(404, { error: 'no such queue or action' });
      }
      const queue = /** @type {string} */ (name);
      if (method === 'GET') return reply(200, { messages: store.messages(queue).map(view) });
      if (method !== 'POST') return reply(405, { error: 'method not allowed' });
      const input = JSON.parse(text || '{}');
      if (!Array.isArray(input.messages) || input.messages.some((m) => typeof m?.body !== 'string')) {
        return reply(400, { error: 'messages must be an array of {body, delayMs?}' });
      }
      return reply(200, { messageIds: send(queue, input.messages) });
    } catch (error) {
      return reply(400, { error: error instanceof Error ? error.message : String(error) });
    }
  };

  await new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  const listenPort = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${listenPort}`;
  api.baseUrl = url;

  /**
   * Starts invoking the functions; `invoke(functionKey, sqsEvent)` resolves to the function's
   * result (a partial batch response) or rejects when the invocation failed.
   * @param {(functionKey: string, event: ReturnType<typeof sqsEvent>) => Promise<unknown>} invoke
   */
  const startPolling = (invoke) => {
    for (const consumer of consumers) {
      const name = consumer.queue;
      let inflight = 0;
      let stopped = false;
      /** @type {NodeJS.Timeout | undefined} */
      let timer;
      let lastError = '';
      const halt = new AbortController();
      const run = async (/** @type {import('./local-queue/store.mjs').StoredMessage[]} */ batch) => {
        // Made again, with the same receipt handles, until the batch's visibility time-out ends.
        const hiddenUntil = Math.min(...batch.map((message) => message.visibleAt));
        let result;
        for (let wait = REINVOKE_FIRST_MS; ; wait = Math.min(2 * wait, REINVOKE_MAX_MS)) {
          try {
            result = await invoke(consumer.functionKey, sqsEvent(name, batch));
            break;
          } catch (error) {
            const why = error instanceof Error ? error.message : String(error);
            const again = error instanceof NotInvokedError && Date.now() + wait < hiddenUntil;
            const text = again
              ? `local queue: could not invoke ${consumer.functionKey}: ${why}; nothing ran, so its ${batch.length} message(s) are not hidden: invoking again every ${REINVOKE_MAX_MS / 1000} s at most`
              : `local queue: ${consumer.functionKey} failed; its ${batch.length} message(s) come back in ${consumer.visibilityMs / 1000} s: ${why}`;
            if (text !== lastError) log(text);
            lastError = text;
            if (!again) return;
            await sleep(wait, undefined, { signal: halt.signal }).catch(() => undefined);
            // Stopping: the batch stays received, and the next start brings it back at once.
            if (stopped) return;
          }
        }
        lastError = '';
        const failures = /** @type {{ batchItemFailures?: { itemIdentifier?: string }[] } | null} */ (result)
          ?.batchItemFailures;
        const kept = new Set((failures ?? []).map((failure) => failure.itemIdentifier));
        const done = batch.filter((message) => !kept.has(message.messageId));
        // The event source deletes a batch's successes with one DeleteMessageBatch.
        if (done.length === 0) return;
        const handles = done.map((message) => message.receiptHandle ?? '');
        statsOf(name).deleted += store.deleteAll(name, handles);
        statsOf(name).deleteRequests += 1;
      };
      const pump = () => {
        clearTimeout(timer);
        timer = undefined;
        if (stopped) return;
        try {
          while (inflight < consumer.concurrency) {
            const batch = receive(name, consumer.batchSize, consumer.visibilityMs);
            if (batch.length === 0) break;
            inflight += 1;
            const done = run(batch).finally(() => {
              inflight -= 1;
              running.delete(done);
              pump();
            });
            running.add(done);
          }
        } catch (error) {
          log(
            `local queue: could not receive from ${name}: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
        // With every slot busy, the next finishing batch pumps again: no need to scan for a timer.
        if (inflight >= consumer.concurrency) return;
        const next = Math.min(store.nextVisibleAt(name), Date.now() + RESCAN_MS);
        timer = setTimeout(pump, Math.max(0, next - Date.now()));
      };
      const waker = () => {
        if (!stopped) setImmediate(pump);
      };
      wakers.add(waker);
      pollers.push({
        stop: () => {
          stopped = true;
          halt.abort();
          clearTimeout(timer);
          wakers.delete(waker);
        },
        running: () => inflight,
      });
      pump();
    }
  };

  return {
    url,
    port: listenPort,
    path: file,
    env: queueEnv(url),
    startPolling,
    /** @param {string} name @param {{ body: string, delayMs?: number }[]} messages */
    send: (name, messages) => send(name, messages),
    /** Every message of a queue, visible or not. */
    messages: (/** @type {string} */ name) => store.messages(name).map(view),
    /** The bodies on the dead-letter queue, parsed when they are JSON. */
    deadLetters: () =>
      store.messages('dead-letter').map((message) => {
        try {
          return JSON.parse(message.body);
        } catch {
          return message.body;
        }
      }),
    counts,
    /** Per queue, the messages and the SQS-equivalent requests so far. */
    stats: () => Object.fromEntries(Object.entries(stats).map(([name, value]) => [name, { ...value }])),
    idle,
    async stop() {
      for (const poller of pollers) poller.stop();
      await Promise.allSettled([...running]);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
      store.close();
      if (!path) for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    },
  };
}

/**
 * @param {import('./local-queue/sqs-api.mjs').SqsApiContext} api
 * @param {string} target
 * @param {string} text
 * @param {http.ServerResponse} res
 */
async function serveSqs(api, target, text, res) {
  const action = target.startsWith('AmazonSQS.') ? target.slice('AmazonSQS.'.length) : '';
  /** @param {number} status @param {unknown} body @param {Record<string, string>} [headers] */
  const reply = (status, body, headers = {}) =>
    res
      .writeHead(status, { 'content-type': 'application/x-amz-json-1.0', ...headers })
      .end(JSON.stringify(body));
  try {
    /** @type {unknown} */
    let input;
    try {
      input = JSON.parse(text || '{}');
    } catch {
      throw new SqsApiError('InvalidParameterValue', 'The request body is not JSON');
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw new SqsApiError('InvalidParameterValue', 'The request body is not a JSON object');
    }
    reply(200, await runAction(api, action, /** @type {Record<string, unknown>} */ (input)));
  } catch (error) {
    if (error instanceof SqsApiError) {
      reply(
        400,
        { __type: `com.amazonaws.sqs#${error.code}`, message: error.message },
        { 'x-amzn-query-error': `${error.queryCode};Sender` },
      );
    } else {
      reply(500, {
        __type: 'com.amazonaws.sqs#InternalError',
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
