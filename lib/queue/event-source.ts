/**
 * The part of the platform a host without AWS plays itself: SQS's event sources, which receive a
 * queue's messages in batches, invoke its function (the same handler a deployment runs,
 * functions/queue/*), and delete what the function does not report in `batchItemFailures`. A
 * failed invocation's batch comes back after the visibility time-out, as with SQS; messages
 * received `maxReceiveCount` times go to the dead-letter queue (the store's receive does that).
 * `npm start`'s local queue (scripts/local-queue.ts) and a node's in-process queue
 * (agent/serve/node-queue.ts) run their functions through it, over stores of their own.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type Backoff, backoffStepMs } from '../backoff';
import type { QueueName } from './queue-port';
import queues from './queues.json';

/** The queues an event source polls; the dead-letter queue only keeps what was given up on. */
export type PolledQueue = Exclude<QueueName, 'dead-letter'>;
export const POLLED: readonly PolledQueue[] = ['fan-out', 'delivery', 'cleanup'];

export interface Consumer {
  queue: PolledQueue;
  /** The function's key in serverless.yml. */
  functionKey: string;
  batchSize: number;
  /** The queue's visibility time-out. */
  visibilityMs: number;
  /** Invocations at once. */
  concurrency: number;
  /** Receives after which a message is moved to the dead-letter queue. */
  maxReceiveCount: number;
}

/**
 * The event sources serverless.yml declares, with their queue's visibility time-out and redrive
 * budget from lib/queue/queues.json.
 */
const eventSource = (
  queue: PolledQueue,
  source: { functionKey: string; batchSize: number; concurrency: number },
): Consumer => ({
  queue,
  ...source,
  visibilityMs: queues[queue].visibilityTimeoutSeconds * 1000,
  maxReceiveCount: queues[queue].maxReceiveCount,
});

export const DEFAULT_CONSUMERS: Consumer[] = [
  eventSource('fan-out', { functionKey: 'fanOut', batchSize: 10, concurrency: 4 }),
  // 5, as a standard mapping starts: a batch of packs is up to 250 notifications, and every
  // invocation's store calls share one store.
  eventSource('delivery', { functionKey: 'deliver', batchSize: 10, concurrency: 5 }),
  // Delete-all's background removal.
  eventSource('cleanup', { functionKey: 'removeRetiredSubscriptions', batchSize: 1, concurrency: 2 }),
];

/** A message as a receive hands it out: hidden until `visibleAt`, deleted by its `receiptHandle`. */
export interface ReceivedMessage {
  readonly messageId: string;
  readonly body: string;
  readonly sentAt: number;
  readonly visibleAt: number;
  readonly receiveCount: number;
  readonly firstReceivedAt: number | null;
  readonly receiptHandle: string | null;
}

/** The event an SQS event source gives a Lambda. */
export function sqsEvent(
  queueArn: string,
  messages: readonly (Pick<ReceivedMessage, 'messageId' | 'body' | 'receiveCount' | 'sentAt'> &
    Partial<Pick<ReceivedMessage, 'receiptHandle' | 'firstReceivedAt'>>)[],
): SQSEvent {
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
      eventSourceARN: queueArn,
      awsRegion: 'us-east-1',
    })),
  };
}

/** Resolves to the function's result (a partial batch response); rejects when the invocation failed. */
export type Invoke = (functionKey: string, event: SQSEvent) => Promise<unknown>;

/** The function was never reached (the connection was refused): nothing ran, so nothing failed. */
export class NotInvokedError extends Error {}

/** What a poller asks of the queues' store. */
export interface PolledStore {
  /** Up to `max` visible messages of `queue`, hidden for `visibilityMs`, each one more receive (redriven past its budget). */
  receive(queue: PolledQueue, max: number, visibilityMs: number): ReceivedMessage[];
  /** Deletes by receipt handle; a handle that is not a message's latest deletes nothing. */
  deleteAll(queue: PolledQueue, receiptHandles: string[]): void;
  /** When the next message of `queue` becomes visible (Infinity: none). */
  nextVisibleAt(queue: PolledQueue): number;
}

/** The poller looks again at least this often: another process (a tool) may have written. */
const RESCAN_MS = 1000;
/** An invocation that could not be made is made again after 100 ms, 200 ms … at most 2 s apart. */
const REINVOKE: Backoff = { baseMs: 100, maxMs: 2000 };

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Polls each consumer's queue and invokes its function, several invocations at once, so that a
 * consumer endpoint that hangs holds up only its own batch. `wake()` after a send or a visibility
 * change; `stop()` waits for the invocations under way.
 */
export function pollQueues({
  consumers,
  store,
  invoke,
  queueArn,
  log,
}: {
  consumers: readonly Consumer[];
  store: PolledStore;
  invoke: Invoke;
  queueArn: (queue: PolledQueue) => string;
  log: (text: string) => void;
}) {
  const invocations = new Set<Promise<void>>();
  const halt = new AbortController();
  const wakers = new Set<() => void>();
  for (const consumer of consumers) {
    const { queue: name, functionKey } = consumer;
    let inflight = 0;
    let timer: NodeJS.Timeout | undefined;
    let lastProblem = '';
    const run = async (batch: ReceivedMessage[]) => {
      // Made again, with the same receipt handles, until the batch's visibility time-out ends.
      const hiddenUntil = Math.min(...batch.map((message) => message.visibleAt));
      let result: unknown;
      for (let attempt = 1; ; attempt++) {
        const wait = backoffStepMs(attempt, REINVOKE);
        try {
          result = await invoke(functionKey, sqsEvent(queueArn(name), batch));
          break;
        } catch (error) {
          const again = error instanceof NotInvokedError && Date.now() + wait < hiddenUntil;
          const problem = again
            ? `queue: could not invoke ${functionKey}: ${messageOf(error)}; nothing ran, so its ${batch.length} message(s) are not hidden: invoking again every ${REINVOKE.maxMs / 1000} s at most`
            : `queue: ${functionKey} failed; its ${batch.length} message(s) come back in ${consumer.visibilityMs / 1000} s: ${messageOf(error)}`;
          if (problem !== lastProblem) log(problem);
          lastProblem = problem;
          if (!again) return;
          await sleep(wait, undefined, { signal: halt.signal }).catch(() => undefined);
          // Stopping: the batch stays received, and the next start brings it back at once.
          if (halt.signal.aborted) return;
        }
      }
      lastProblem = '';
      const failures = (result as SQSBatchResponse | null)?.batchItemFailures ?? [];
      const failed = new Set(failures.map((failure) => failure.itemIdentifier));
      const done = batch.filter((message) => !failed.has(message.messageId));
      const handles = done.map((message) => message.receiptHandle ?? '');
      // The event source deletes a batch's successes with one DeleteMessageBatch.
      if (handles.length > 0) store.deleteAll(name, handles);
    };
    const pump = () => {
      clearTimeout(timer);
      if (halt.signal.aborted) return;
      try {
        while (inflight < consumer.concurrency) {
          const batch = store.receive(name, consumer.batchSize, consumer.visibilityMs);
          if (batch.length === 0) break;
          inflight += 1;
          const invocation = run(batch).finally(() => {
            inflight -= 1;
            invocations.delete(invocation);
            pump();
          });
          invocations.add(invocation);
        }
      } catch (error) {
        log(`queue: could not receive from ${name}: ${messageOf(error)}`);
      }
      // With every slot busy, the next finishing batch pumps again: no need to scan for a timer.
      if (inflight >= consumer.concurrency) return;
      const next = Math.min(store.nextVisibleAt(name), Date.now() + RESCAN_MS);
      timer = setTimeout(pump, Math.max(0, next - Date.now()));
    };
    wakers.add(() => setImmediate(pump));
    halt.signal.addEventListener('abort', () => clearTimeout(timer));
    pump();
  }
  return {
    /** Invocations under way. */
    get running(): number {
      return invocations.size;
    },
    wake(): void {
      for (const waker of wakers) waker();
    },
    async stop(): Promise<void> {
      halt.abort();
      await Promise.allSettled([...invocations]);
    },
  };
}
