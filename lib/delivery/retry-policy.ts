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

export interface Backoff {
  readonly baseMs: number;
  readonly maxMs: number;
}

/**
 * The wait after the `attempt`-th failed attempt (1-based): exponential, capped, with "equal
 * jitter" — half of the step is fixed, so retries never bunch up at zero, and half is random, so
 * the subscribers of one failing fan-out do not retry in lock-step.
 *   step = min(maxMs, baseMs · 2^(attempt−1));  wait = step/2 + random · step/2
 */
export function backoffMs(attempt: number, backoff: Backoff, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt, 1) - 1, 40);
  const step = Math.min(backoff.maxMs, backoff.baseMs * 2 ** exponent);
  return Math.round(step / 2 + random() * (step / 2));
}
