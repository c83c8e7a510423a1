import { type Backoff, backoffMs, jitteredMs } from '../backoff';
import { describeFailure, type SendOutcome } from './http-sender';

/** What one attempt's outcome means: 2xx delivered, 410 gone, 408/429/5xx/3xx/network retried, other 4xx given up. */
export type Verdict =
  | { readonly kind: 'delivered' }
  /** 410 Gone: the consumer asks for the subscription to be deleted. */
  | { readonly kind: 'gone' }
  | { readonly kind: 'retry'; readonly reason: string; readonly retryAfterMs?: number }
  | { readonly kind: 'give-up'; readonly reason: string };

const RETRIED_4XX = new Set([404, 408, 429]);

export function judge(outcome: SendOutcome, timeoutMs: number): Verdict {
  if (outcome.kind === 'forbidden') {
    return {
      kind: 'give-up',
      reason: describeFailure(outcome, timeoutMs) ?? 'refused by the network policy',
    };
  }
  if (outcome.kind !== 'response') {
    return { kind: 'retry', reason: describeFailure(outcome, timeoutMs) ?? outcome.kind };
  }
  const { status } = outcome;
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 410) return { kind: 'gone' };
  if (status >= 400 && status < 500 && !RETRIED_4XX.has(status)) {
    return { kind: 'give-up', reason: `it answered HTTP ${status}, which is not retried` };
  }
  // 404, 408, 429, 5xx, and redirects (never followed: the endpoint may be moving back).
  const reason =
    status >= 300 && status < 400
      ? `it answered HTTP ${status} (redirects are not followed)`
      : `it answered HTTP ${status}`;
  return outcome.retryAfterSeconds === undefined
    ? { kind: 'retry', reason }
    : { kind: 'retry', reason, retryAfterMs: outcome.retryAfterSeconds * 1000 };
}

/**
 * The wait after a notification's `attempt`-th failed attempt (1-based), and after a fan-out's
 * failed receive: the back-off of lib/backoff.ts with "equal jitter". Equal, unlike the full
 * jitter of an AWS call's retry (lib/retry-pause.ts): half of the step is fixed, so a consumer that
 * just failed is never retried at once (retries never bunch up at zero), and half is random, so
 * the subscribers of one failing fan-out do not retry in lock-step.
 */
export function notificationBackoffMs(
  attempt: number,
  backoff: Backoff,
  random: () => number = Math.random,
): number {
  return backoffMs(attempt, backoff, 'equal', random);
}

/**
 * The wait of an attempt that found its (subscription, address) lease held by another attempt:
 * until about the lease's end, at most the back-off base, plus up to half the base, random (full
 * jitter, lib/backoff.ts). Not the notification's back-off: a wait is no failed attempt, so it
 * does not grow with the attempts; the holder usually finishes in milliseconds. The random part
 * keeps the waiters of one lease from all coming back at the same moment.
 */
export function leaseWaitMs(
  leaseLeftMs: number,
  backoff: Backoff,
  random: () => number = Math.random,
): number {
  return Math.max(0, Math.min(leaseLeftMs, backoff.baseMs)) + jitteredMs(backoff.baseMs / 2, 'full', random);
}
