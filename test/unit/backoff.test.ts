import { describe, expect, it } from 'vitest';
import { backoffMs, backoffStepMs, jitteredMs } from '../../lib/backoff';

// The one back-off arithmetic (lib/backoff.ts); each purpose's choice of base, cap and jitter is
// tested where it is used (test/delivery/retry-policy.test.ts, test/store/batch-get.test.ts).
describe('backoff: a doubling step, capped, jittered', () => {
  const backoff = { baseMs: 100, maxMs: 3000 };

  it('doubles from the base with each attempt', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => backoffStepMs(attempt, backoff))).toEqual([
      100, 200, 400, 800, 1600,
    ]);
  });

  it('never passes the cap, however many attempts, and counts an attempt below 1 as the first', () => {
    expect(backoffStepMs(6, backoff)).toBe(3000);
    expect(backoffStepMs(10_000, backoff)).toBe(3000);
    expect(backoffStepMs(Number.MAX_SAFE_INTEGER, backoff)).toBe(3000);
    expect(backoffStepMs(0, backoff)).toBe(100);
    expect(backoffStepMs(-3, backoff)).toBe(100);
  });

  it('full jitter spans the whole step, from none of it to all of it', () => {
    expect(jitteredMs(800, 'full', () => 0)).toBe(0);
    expect(jitteredMs(800, 'full', () => 0.5)).toBe(400);
    expect(jitteredMs(800, 'full', () => 1)).toBe(800);
  });

  it('equal jitter spans the upper half of the step', () => {
    expect(jitteredMs(800, 'equal', () => 0)).toBe(400);
    expect(jitteredMs(800, 'equal', () => 0.5)).toBe(600);
    expect(jitteredMs(800, 'equal', () => 1)).toBe(800);
  });

  it('stays within its bounds for every attempt, and spreads retries out', () => {
    for (let attempt = 1; attempt <= 50; attempt++) {
      const step = backoffStepMs(attempt, backoff);
      for (const jitter of ['full', 'equal'] as const) {
        const wait = backoffMs(attempt, backoff, jitter);
        expect(wait).toBeGreaterThanOrEqual(jitter === 'equal' ? step / 2 : 0);
        expect(wait).toBeLessThanOrEqual(step);
        expect(Number.isInteger(wait)).toBe(true);
      }
    }
    const waits = new Set(Array.from({ length: 50 }, () => backoffMs(5, backoff, 'full')));
    expect(waits.size).toBeGreaterThan(10);
  });
});
