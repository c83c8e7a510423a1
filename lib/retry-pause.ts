import { type Backoff, backoffMs } from './backoff';

/**
 * The pause before sending again what an AWS call answered but left undone — keys DynamoDB left
 * unprocessed, a transaction cancelled by a conflicting one, batch entries SQS failed. The SDK's
 * own retry strategy (configured on each client) retries a call that failed; it cannot retry part
 * of an answer that succeeded, so the service pauses itself, with the back-off arithmetic of
 * lib/backoff.ts: 20 ms · 2^(n−1), at most 640 ms, full jitter. Full, unlike a notification's
 * equal jitter: these are a function's own calls colliding with each other on a table or a queue,
 * retried within one invocation, and spreading them over the whole step (some at once) is what
 * separates them fastest; no one outside waits on the gap.
 */
const AWS_PARTIAL_ANSWER: Backoff = { baseMs: 20, maxMs: 640 };

export function retryPauseMs(attempt: number, random: () => number = Math.random): number {
  return backoffMs(attempt, AWS_PARTIAL_ANSWER, 'full', random);
}

export function pauseBeforeRetry(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, retryPauseMs(attempt)));
}
