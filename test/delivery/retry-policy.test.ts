import { describe, expect, it } from 'vitest';
import { loadDeliveryConfig } from '../../lib/config';
import type { SendOutcome } from '../../lib/delivery/http-sender';
import { judge, leaseWaitMs, notificationBackoffMs } from '../../lib/delivery/retry-policy';
import queues from '../../lib/queue/queues.json';

const response = (status: number, retryAfterSeconds?: number): SendOutcome =>
  retryAfterSeconds === undefined
    ? { kind: 'response', status }
    : { kind: 'response', status, retryAfterSeconds };

describe('judge: what an answer means for the notification', () => {
  it.each([200, 201, 202, 204, 299])('%i is delivered', (status) => {
    expect(judge(response(status), 2000)).toEqual({ kind: 'delivered' });
  });

  it('410 deletes the subscription', () => {
    expect(judge(response(410), 2000)).toEqual({ kind: 'gone' });
  });

  it.each([404, 408, 429, 500, 502, 503, 504, 301, 302, 307, 308])('%i is retried', (status) => {
    expect(judge(response(status), 2000).kind).toBe('retry');
  });

  it('says a redirect was not followed', () => {
    expect(judge(response(302), 2000)).toEqual({
      kind: 'retry',
      reason: 'it answered HTTP 302 (redirects are not followed)',
    });
  });

  it.each([400, 401, 403, 405, 409, 413, 415, 422])('%i is not retried', (status) => {
    expect(judge(response(status), 2000)).toEqual({
      kind: 'give-up',
      reason: `it answered HTTP ${status}, which is not retried`,
    });
  });

  it('retries time-outs and network errors, not what the network policy forbids', () => {
    expect(judge({ kind: 'timeout' }, 2000)).toEqual({ kind: 'retry', reason: 'no answer within 2000 ms' });
    expect(judge({ kind: 'network-error', reason: 'ECONNREFUSED' }, 2000).kind).toBe('retry');
    expect(judge({ kind: 'forbidden', reason: 'link-local address' }, 2000)).toEqual({
      kind: 'give-up',
      reason: 'refused by the network policy: link-local address',
    });
  });

  it('carries Retry-After in milliseconds', () => {
    expect(judge(response(503, 7), 2000)).toMatchObject({ kind: 'retry', retryAfterMs: 7000 });
  });
});

describe("a notification's back-off and a lease wait (the arithmetic: test/unit/backoff.test.ts)", () => {
  const backoff = { baseMs: 1000, maxMs: 300_000 };

  it('never retries a failed notification sooner than half its step: the jitter is equal, not full', () => {
    expect(notificationBackoffMs(1, backoff, () => 0)).toBe(500);
    expect(notificationBackoffMs(4, backoff, () => 0)).toBe(4000);
    expect(notificationBackoffMs(4, backoff, () => 1)).toBe(8000);
  });

  it('waits for a held lease until about its end, at most the base, plus up to half the base; it does not grow', () => {
    expect(leaseWaitMs(30, backoff, () => 0)).toBe(30);
    expect(leaseWaitMs(30, backoff, () => 1)).toBe(530);
    expect(leaseWaitMs(60_000, backoff, () => 1)).toBe(1500);
    expect(leaseWaitMs(-5, backoff, () => 0)).toBe(0);
  });
});

describe("the queues' redrive budgets, with failed records brought back after this back-off", () => {
  const settings = loadDeliveryConfig({});
  /** The earliest a record failing on every receive reaches its last one (the jitter at its lowest). */
  const lastReceiveAfterMs = (maxReceiveCount: number) => {
    let total = 0;
    for (let receive = 1; receive < maxReceiveCount; receive++) {
      total += notificationBackoffMs(
        receive,
        { baseMs: settings.backoffBaseMs, maxMs: settings.backoffMaxMs },
        () => 0,
      );
    }
    return total;
  };

  it('retries a fan-out failing on every receive for at least as long as before: 5 receives, a visibility time-out apart', () => {
    const { maxReceiveCount, visibilityTimeoutSeconds } = queues['fan-out'];
    expect(lastReceiveAfterMs(maxReceiveCount)).toBeGreaterThanOrEqual(
      (5 - 1) * visibilityTimeoutSeconds * 1000,
    );
  });

  it('keeps a delivery the store fails on every receive for longer than the retry window, so it is never dead-lettered before its window ends', () => {
    expect(lastReceiveAfterMs(queues.delivery.maxReceiveCount)).toBeGreaterThan(
      settings.retryWindowSeconds * 1000,
    );
  });
});
