import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * A publisher's event rate (docs/security.md): beyond it, 429 with Retry-After, and nothing is
 * stored or delivered. Read when first used, so this file sets a small one before any handler.
 */
process.env.PUBLISHER_EVENT_RATE = '0.2';
process.env.PUBLISHER_EVENT_BURST = '3';
const { api, expectJson, expectProblem, lockStatePublisher } = await import('../support/api');
const { captureEmf, metricValues } = await import('../support/emf');
const { lockStateEvent } = await import('../support/fixtures');
const { useQueuedDelivery } = await import('../support/queued-delivery');
useQueuedDelivery();

type LogLine = { level: string; message: string } & Record<string, unknown>;
let lines: LogLine[] = [];
beforeEach(() => {
  lines = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    for (const text of String(chunk).split('\n')) {
      if (text.startsWith('{') && !text.includes('"_aws"')) lines.push(JSON.parse(text) as LogLine);
    }
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a publisher’s event rate (0.2 a second, bursts of 3 here: a test’s burst takes well under the 5 s interval)', () => {
  it('accepts a burst, then answers 429 with Retry-After and a detail naming the rate; the refused event is not stored', async () => {
    const { node, address, publisherId } = await lockStatePublisher({ withState: false });
    const base = Date.now() - 60_000;
    const at = (i: number) => new Date(base + i * 1000).toISOString();
    for (let i = 0; i < 3; i++) {
      const accepted = await api.publish(publisherId, lockStateEvent({ node, time: at(i) }));
      expect(accepted.status, accepted.rawBody).toBe(202);
    }
    let refused: Awaited<ReturnType<typeof api.publish>> | undefined;
    const emf = await captureEmf(async () => {
      refused = await api.publish(publisherId, lockStateEvent({ node, time: at(3), value: 'FREERUN' }));
    });
    if (!refused) throw new Error('no response');
    const problem = expectProblem(refused, 429);
    expect(problem.detail).toMatch(
      new RegExp(
        `^The publisher at ${address} is over its rate of 0.2 events a second \\(bursts of 3\\): send this event again after [1-5] s \\(Retry-After\\)\\. The rate is the stage parameters publisherEventRate and publisherEventBurst`,
      ),
    );
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(5);
    expect(problem.detail).toContain(`after ${retryAfter} s`);
    expect(metricValues(emf, 'PublisherRateRefusals').map((m) => m.value)).toEqual([1]);
    expect(lines).toContainEqual(
      expect.objectContaining({ message: 'refused', rule: 'rate', principal: 'anonymous', address }),
    );
    // The current state is the last accepted event, not the refused one.
    expect(expectJson<{ time: string }>(await api.currentState(address), 200).time).toBe(at(2));

    // After Retry-After, the same event is accepted.
    await later(retryAfter * 1000);
    const again = await api.publish(publisherId, lockStateEvent({ node, time: at(3), value: 'FREERUN' }));
    expect(again.status, again.rawBody).toBe(202);
  });

  it('a repeat or an older event over the rate is still the 200 that says so: neither counts', async () => {
    const { node, publisherId } = await lockStatePublisher({ withState: false });
    const base = Date.now() - 60_000;
    const burst = [0, 1, 2].map((i) =>
      lockStateEvent({ node, time: new Date(base + 10_000 + i).toISOString() }),
    );
    for (const event of burst) expect((await api.publish(publisherId, event)).status).toBe(202);
    // A repeat of the current event (the last one).
    expect(expectJson<{ reason: string }>(await api.publish(publisherId, burst[2]), 200).reason).toBe(
      'duplicate',
    );
    const older = lockStateEvent({ node, time: new Date(base).toISOString() });
    expect(expectJson<{ reason: string }>(await api.publish(publisherId, older), 200).reason).toBe('stale');
    expectProblem(await api.publish(publisherId, lockStateEvent({ node })), 429);
  });

  it('each publisher has its own rate', async () => {
    const a = await lockStatePublisher({ withState: false });
    const b = await lockStatePublisher({ withState: false });
    for (let i = 0; i < 3; i++) await api.publish(a.publisherId, lockStateEvent({ node: a.node }));
    expectProblem(await api.publish(a.publisherId, lockStateEvent({ node: a.node })), 429);
    expect((await api.publish(b.publisherId, lockStateEvent({ node: b.node }))).status).toBe(202);
  });
});
