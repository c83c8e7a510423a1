/**
 * Queued delivery in-process: the local queue of `npm start` (scripts/local-queue.ts) with its
 * poller invoking the real fan-out and deliver handlers directly, instead of through serverless
 * offline. Tests that publish call `startDeliveryHarness()` in a beforeAll, before the first
 * publish, because the delivery settings are read once per test file.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { handler as deliverHandler } from '../../functions/queue/deliver';
import { handler as fanOutHandler } from '../../functions/queue/fan-out';
import { handler as removeRetiredHandler } from '../../functions/queue/remove-retired-subscriptions';
import { DEFAULT_CONSUMERS, type LocalQueue, startLocalQueue } from '../../scripts/local-queue';
import { lambdaContext } from '../support/http-event';

export interface HarnessOptions {
  retryWindowSeconds?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** The time-out of one POST (DELIVERY_TIMEOUT_MS). */
  timeoutMs?: number;
  /**
   * The delivery queue's redrive budget, in place of the deployed one: a test scales a budget
   * that takes minutes of contention down to seconds.
   */
  maxReceiveCount?: number;
  /** Listen here instead of on a free port. */
  port?: number;
}

const SETTINGS = {
  DELIVERY_RETRY_WINDOW_SECONDS: 'retryWindowSeconds',
  DELIVERY_BACKOFF_BASE_MS: 'backoffBaseMs',
  DELIVERY_BACKOFF_MAX_MS: 'backoffMaxMs',
  DELIVERY_TIMEOUT_MS: 'timeoutMs',
} as const;

type Handler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
const handlers: Record<string, Handler> = {
  fanOut: fanOutHandler,
  deliver: deliverHandler,
  removeRetiredSubscriptions: removeRetiredHandler,
};

export async function startDeliveryHarness(
  options: HarnessOptions = {},
): Promise<LocalQueue & { restoreEnv(): void }> {
  const saved = { ...process.env };
  for (const [variable, option] of Object.entries(SETTINGS)) {
    const value = options[option];
    if (value !== undefined) process.env[variable] = String(value);
  }
  const queue = await startLocalQueue({
    port: options.port ?? 0,
    // The handlers run in this process: more invocations at once cost nothing here.
    consumers: DEFAULT_CONSUMERS.map((consumer) => ({
      ...consumer,
      concurrency: consumer.concurrency * 2,
      ...(consumer.queue === 'delivery' && options.maxReceiveCount !== undefined
        ? { maxReceiveCount: options.maxReceiveCount }
        : {}),
    })),
    log: () => undefined,
  });
  // The functions find the queues as deployed: by their URLs, on the local queue's endpoint.
  Object.assign(process.env, queue.env);
  queue.startPolling(async (functionKey, event) => {
    const handler = handlers[functionKey];
    if (!handler) throw new Error(`no handler ${functionKey}`);
    return handler(event as unknown as SQSEvent, lambdaContext());
  });
  return {
    ...queue,
    restoreEnv() {
      for (const variable of [...Object.keys(SETTINGS), ...Object.keys(queue.env)]) {
        if (saved[variable] === undefined) delete process.env[variable];
        else process.env[variable] = saved[variable];
      }
    },
  };
}
