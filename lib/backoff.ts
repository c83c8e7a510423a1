/**
 * The back-off arithmetic: the one implementation every pause before a retry uses, in the service
 * and in the node agent (which bundles this module; it imports nothing). Each purpose keeps its own
 * base, cap and jitter where it is used, and says there why:
 *   step = min(maxMs, baseMs · 2^(attempt − 1))    attempt 1-based (below 1 counts as 1)
 *   full jitter:   wait = random · step             spreads retries the most; some go at once
 *   equal jitter:  wait = step/2 + random · step/2  never less than half the step
 */
export interface Backoff {
  readonly baseMs: number;
  readonly maxMs: number;
}

export type Jitter = 'full' | 'equal';

/** The step after the `attempt`-th failure: doubling from `baseMs`, never past `maxMs`. */
export function backoffStepMs(attempt: number, backoff: Backoff): number {
  // 2^40 ms is 35 years: any cap is reached long before, and the power never overflows.
  const exponent = Math.min(Math.max(attempt, 1) - 1, 40);
  return Math.min(backoff.maxMs, backoff.baseMs * 2 ** exponent);
}

/** A random wait within `stepMs`, whole milliseconds: all of it random (full) or its upper half (equal). */
export function jitteredMs(stepMs: number, jitter: Jitter, random: () => number = Math.random): number {
  const fixed = jitter === 'equal' ? stepMs / 2 : 0;
  return Math.round(fixed + random() * (stepMs - fixed));
}

/** The wait after the `attempt`-th failure: `backoffStepMs`, jittered. */
export function backoffMs(
  attempt: number,
  backoff: Backoff,
  jitter: Jitter,
  random: () => number = Math.random,
): number {
  return jitteredMs(backoffStepMs(attempt, backoff), jitter, random);
}
