// @ts-check
/**
 * The local stand-in for SQS and its Lambda event sources, for `npm start`, the tests and the
 * benchmark (no SQS emulator runs here). Three in-memory queues — fan-out, delivery, dead-letter —
 * with SQS standard-queue semantics: delays, visibility time-outs, receive counts, receipt handles
 * that go stale on the next receive, and a redrive to the dead-letter queue after too many
 * receives. A tiny JSON API on 127.0.0.1 serves the functions (lib/queue/local-http-queue.ts) and
 * anyone curious:
 *
 *   POST /queues/{name}/messages    {"messages": [{"body": "...", "delayMs": 0}]}  → {"messageIds": [...]}
 *   POST /queues/{name}/receive     {"max": 10, "visibilityMs": 30000}            → {"messages": [...]}
 *   POST /queues/{name}/delete      {"receiptHandle": "..."}                       → 204, or 404 if stale
 *   POST /queues/{name}/visibility  {"receiptHandle": "...", "visibilityMs": 500}  → 204, or 404 if stale
 *   GET  /queues/{name}/messages    every message, visible or not (e.g. the dead letters)
 *   GET  /health
 *
 * A poller plays the part of the Lambda event sources: it receives batches (fan-out 10, delivery 10)
 * and invokes the functions — through serverless offline's Lambda endpoint under `npm start`, or
 * any `invoke` function (tests call the handlers directly) — several invocations at once, so a
 * consumer that hangs holds up only its own batch. It deletes what the function does not report in
 * `batchItemFailures`; a failed invocation leaves its batch to come back after the visibility
 * time-out, as with SQS. Types for TypeScript callers: local-queue.d.mts.
 *
 * Messages live in memory: pending deliveries do not survive a restart of `npm start`.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';

export const QUEUE_NAMES = /** @type {const} */ (['fan-out', 'delivery', 'dead-letter', 'cleanup']);
const MAX_REQUEST_BYTES = 32 * 1024 * 1024;
/** SQS's batch calls (SendMessageBatch, DeleteMessageBatch) take at most 10 messages. */
const SQS_BATCH = 10;

/**
 * @typedef {object} Consumer
 * @property {'fan-out' | 'delivery' | 'cleanup'} queue
 * @property {string} functionKey the function's key in serverless.yml
 * @property {number} batchSize
 * @property {number} visibilityMs the queue's visibility time-out
 * @property {number} concurrency invocations at once
 * @property {number} maxReceiveCount receives after which a message is moved to the dead-letter queue
 */

/** The event sources serverless.yml declares (FanOutQueue 360 s, DeliveryQueue 180 s). */
/** @type {Consumer[]} */
export const DEFAULT_CONSUMERS = [
  {
    queue: 'fan-out',
    functionKey: 'fanOut',
    batchSize: 10,
    visibilityMs: 360_000,
    concurrency: 4,
    maxReceiveCount: 5,
  },
  {
    queue: 'delivery',
    functionKey: 'deliver',
    batchSize: 10,
    visibilityMs: 180_000,
    concurrency: 8,
    maxReceiveCount: 100,
  },
  {
    // Delete-all's background removal (CleanupQueue 360 s).
    queue: 'cleanup',
    functionKey: 'removeRetiredSubscriptions',
    batchSize: 1,
    visibilityMs: 360_000,
    concurrency: 2,
    maxReceiveCount: 5,
  },
];

/**
 * @typedef {object} StoredMessage
 * @property {string} messageId
 * @property {string} body
 * @property {number} sentAt
 * @property {number} visibleAt
 * @property {number} receiveCount
 * @property {number | undefined} firstReceivedAt
 * @property {string | undefined} receiptHandle
 * @property {string | undefined} deadLetterSourceQueue
 */

class Queue {
  /** @param {string} name */
  constructor(name) {
    this.name = name;
    /** @type {Map<string, StoredMessage>} insertion order: oldest first, as SQS mostly does */
    this.messages = new Map();
    /** What SQS would have been asked for: messages, and requests (its batch calls take 10). */
    this.stats = {
      sent: 0,
      sendRequests: 0,
      received: 0,
      receiveRequests: 0,
      deleted: 0,
      deleteRequests: 0,
      visibilityChanges: 0,
    };
  }

  /**
   * @param {string} body
   * @param {number} [delayMs]
   * @param {string} [deadLetterSourceQueue]
   */
  send(body, delayMs = 0, deadLetterSourceQueue) {
    const now = Date.now();
    const messageId = randomUUID();
    this.stats.sent += 1;
    this.messages.set(messageId, {
      messageId,
      body,
      sentAt: now,
      visibleAt: now + Math.max(0, delayMs),
      receiveCount: 0,
      firstReceivedAt: undefined,
      receiptHandle: undefined,
      deadLetterSourceQueue,
    });
    return messageId;
  }

  /**
   * Hides up to `max` visible messages for `visibilityMs`; each gets a new receipt handle.
   * @param {number} max
   * @param {number} visibilityMs
   * @param {(message: StoredMessage) => boolean} [redrive] true when the message was moved away
   */
  receive(max, visibilityMs, redrive) {
    const now = Date.now();
    /** @type {StoredMessage[]} */
    const received = [];
    for (const message of this.messages.values()) {
      if (received.length >= max) break;
      if (message.visibleAt > now) continue;
      if (redrive?.(message)) {
        this.messages.delete(message.messageId);
        continue;
      }
      message.receiveCount += 1;
      message.firstReceivedAt ??= now;
      message.visibleAt = now + visibilityMs;
      message.receiptHandle = `${message.messageId}.${message.receiveCount}.${randomUUID().slice(0, 8)}`;
      received.push(message);
    }
    if (received.length > 0) {
      this.stats.receiveRequests += 1;
      this.stats.received += received.length;
    }
    return received;
  }

  /** @param {string} receiptHandle */
  find(receiptHandle) {
    const message = this.messages.get(receiptHandle.split('.')[0] ?? '');
    return message?.receiptHandle === receiptHandle ? message : undefined;
  }

  /** @param {string} receiptHandle */
  delete(receiptHandle) {
    const message = this.find(receiptHandle);
    if (message) this.messages.delete(message.messageId);
    if (message) this.stats.deleted += 1;
    return message !== undefined;
  }

  /**
   * @param {string} receiptHandle
   * @param {number} visibilityMs
   */
  changeVisibility(receiptHandle, visibilityMs) {
    const message = this.find(receiptHandle);
    this.stats.visibilityChanges += 1;
    if (message) message.visibleAt = Date.now() + Math.max(0, visibilityMs);
    return message !== undefined;
  }

  nextVisibleAt() {
    let next = Number.POSITIVE_INFINITY;
    for (const message of this.messages.values()) next = Math.min(next, message.visibleAt);
    return next;
  }

  counts() {
    const now = Date.now();
    let visible = 0;
    for (const message of this.messages.values()) if (message.visibleAt <= now) visible += 1;
    return { total: this.messages.size, visible, hidden: this.messages.size - visible };
  }
}

/** @param {StoredMessage} message */
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
 * @param {StoredMessage[]} messages
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
 * @property {Consumer[]} [consumers]
 * @property {(message: { body: string, deadLetterSourceQueue: string | undefined }) => void} [onDeadLetter]
 * @property {(text: string) => void} [log] problems of the poller (default console.error)
 */

/**
 * Starts the queues and their HTTP API. The poller starts with `startPolling(invoke)`.
 * @param {LocalQueueOptions} [options]
 */
export async function startLocalQueue({
  port = 0,
  consumers = DEFAULT_CONSUMERS,
  onDeadLetter,
  log = (text) => console.error(text),
} = {}) {
  /** @type {Map<string, Queue>} */
  const queues = new Map(QUEUE_NAMES.map((name) => [name, new Queue(name)]));
  const deadLetterQueue = /** @type {Queue} */ (queues.get('dead-letter'));
  /** @type {Set<() => void>} wakes the poller when messages arrive or become visible */
  const wakers = new Set();
  const wake = () => {
    for (const waker of wakers) waker();
  };

  /**
   * @param {string} name
   * @param {{ body: string, delayMs?: number }[]} messages
   */
  const send = (name, messages) => {
    const queue = queues.get(name);
    if (!queue) throw new Error(`no queue ${name}`);
    const ids = messages.map((message) => queue.send(message.body, message.delayMs ?? 0));
    queue.stats.sendRequests += Math.ceil(messages.length / SQS_BATCH);
    if (name === 'dead-letter')
      for (const message of messages)
        onDeadLetter?.({ body: message.body, deadLetterSourceQueue: undefined });
    wake();
    return ids;
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
      /** @param {number} status @param {unknown} [body] */
      const reply = (status, body) => {
        if (body === undefined) res.writeHead(status).end();
        else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      try {
        const [, first, name, action] = (req.url ?? '').split('?')[0]?.split('/') ?? [];
        if (first === 'health') return reply(200, { ok: true });
        const queue = first === 'queues' && name ? queues.get(name) : undefined;
        if (!queue) return reply(404, { error: 'no such queue' });
        if (req.method === 'GET' && action === 'messages') {
          return reply(200, { messages: [...queue.messages.values()].map(view) });
        }
        if (req.method !== 'POST') return reply(405, { error: 'method not allowed' });
        const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        switch (action) {
          case 'messages': {
            if (!Array.isArray(input.messages) || input.messages.some((m) => typeof m?.body !== 'string')) {
              return reply(400, { error: 'messages must be an array of {body, delayMs?}' });
            }
            return reply(200, { messageIds: send(queue.name, input.messages) });
          }
          case 'receive':
            return reply(200, {
              messages: queue.receive(Number(input.max ?? 1), Number(input.visibilityMs ?? 30_000)).map(view),
            });
          case 'delete':
            queue.stats.deleteRequests += 1;
            return reply(queue.delete(String(input.receiptHandle)) ? 204 : 404);
          case 'visibility': {
            const changed = queue.changeVisibility(
              String(input.receiptHandle),
              Number(input.visibilityMs ?? 0),
            );
            wake();
            return reply(changed ? 204 : 404);
          }
          default:
            return reply(404, { error: 'no such action' });
        }
      } catch (error) {
        return reply(400, { error: error instanceof Error ? error.message : String(error) });
      }
    });
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  const listenPort = typeof address === 'object' && address ? address.port : 0;

  /** @type {Array<{ stop: () => void, idle: () => boolean }>} */
  const pollers = [];
  /** @type {Set<Promise<void>>} */
  const running = new Set();

  /**
   * Starts invoking the functions; `invoke(functionKey, sqsEvent)` resolves to the function's
   * result (a partial batch response) or rejects when the invocation failed.
   * @param {(functionKey: string, event: ReturnType<typeof sqsEvent>) => Promise<unknown>} invoke
   */
  const startPolling = (invoke) => {
    for (const consumer of consumers) {
      const queue = /** @type {Queue} */ (queues.get(consumer.queue));
      let inflight = 0;
      let stopped = false;
      /** @type {NodeJS.Timeout | undefined} */
      let timer;
      let lastError = '';
      /** SQS redrive policy: too many receives → the dead-letter queue, body unchanged. */
      const redrive = (/** @type {StoredMessage} */ message) => {
        if (message.receiveCount < consumer.maxReceiveCount) return false;
        deadLetterQueue.send(message.body, 0, consumer.queue);
        onDeadLetter?.({ body: message.body, deadLetterSourceQueue: consumer.queue });
        return true;
      };
      const run = async (/** @type {StoredMessage[]} */ batch) => {
        let result;
        try {
          result = await invoke(consumer.functionKey, sqsEvent(consumer.queue, batch));
        } catch (error) {
          const text = `local queue: ${consumer.functionKey} failed; its ${batch.length} message(s) come back in ${consumer.visibilityMs / 1000} s: ${error instanceof Error ? error.message : String(error)}`;
          if (text !== lastError) log(text);
          lastError = text;
          return;
        }
        lastError = '';
        const failures = /** @type {{ batchItemFailures?: { itemIdentifier?: string }[] } | null} */ (result)
          ?.batchItemFailures;
        const kept = new Set((failures ?? []).map((failure) => failure.itemIdentifier));
        const done = batch.filter((message) => !kept.has(message.messageId) && message.receiptHandle);
        for (const message of done) queue.delete(message.receiptHandle ?? '');
        // The event source deletes a batch's successes with one DeleteMessageBatch.
        if (done.length > 0) queue.stats.deleteRequests += 1;
      };
      const pump = () => {
        clearTimeout(timer);
        timer = undefined;
        if (stopped) return;
        while (inflight < consumer.concurrency) {
          const batch = queue.receive(consumer.batchSize, consumer.visibilityMs, redrive);
          if (batch.length === 0) break;
          inflight += 1;
          const done = run(batch).finally(() => {
            inflight -= 1;
            running.delete(done);
            pump();
          });
          running.add(done);
        }
        // With every slot busy, the next finishing batch pumps again: no need to scan for a timer.
        if (inflight >= consumer.concurrency) return;
        const next = queue.nextVisibleAt();
        if (Number.isFinite(next)) timer = setTimeout(pump, Math.max(0, Math.min(next - Date.now(), 60_000)));
      };
      const waker = () => {
        if (!stopped) setImmediate(pump);
      };
      wakers.add(waker);
      pollers.push({
        stop: () => {
          stopped = true;
          clearTimeout(timer);
          wakers.delete(waker);
        },
        idle: () => inflight === 0 && queue.messages.size === 0,
      });
      pump();
    }
  };

  return {
    url: `http://127.0.0.1:${listenPort}`,
    port: listenPort,
    startPolling,
    /** @param {string} name @param {{ body: string, delayMs?: number }[]} messages */
    send,
    /** Every message of a queue, visible or not. */
    messages: (/** @type {string} */ name) => [...(queues.get(name)?.messages.values() ?? [])].map(view),
    /** The bodies on the dead-letter queue, parsed when they are JSON. */
    deadLetters: () =>
      [...deadLetterQueue.messages.values()].map((message) => {
        try {
          return JSON.parse(message.body);
        } catch {
          return message.body;
        }
      }),
    counts: () => Object.fromEntries([...queues].map(([name, queue]) => [name, queue.counts()])),
    /** Per queue, the messages and the SQS-equivalent requests so far. */
    stats: () => Object.fromEntries([...queues].map(([name, queue]) => [name, { ...queue.stats }])),
    /** True when the fan-out and delivery queues are empty and no invocation is running. */
    idle: () => pollers.every((poller) => poller.idle()),
    async stop() {
      for (const poller of pollers) poller.stop();
      await Promise.allSettled([...running]);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}
