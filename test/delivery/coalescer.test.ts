/** The coalescer that gathers a turn's store calls: bounded, it sends at most its limit at a time. */
import { expect, it } from 'vitest';
import { Coalescer } from '../../lib/delivery/coalescer';

it('with a limit, runs one batch of at most that many at a time, each caller getting its own result', async () => {
  const batches: number[][] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const doubled = new Coalescer<number, number>(async (inputs) => {
    batches.push(inputs);
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 5));
    inFlight -= 1;
    return inputs.map((n) =>
      n === 7 ? { status: 'rejected', reason: new Error('seven') } : { status: 'fulfilled', value: 2 * n },
    );
  }, 100);
  const calls = Array.from({ length: 250 }, (_, n) => doubled.run(n));
  const results = await Promise.allSettled(calls);
  expect(batches.map((batch) => batch.length)).toEqual([100, 100, 50]);
  expect(mostInFlight).toBe(1);
  expect(results[3]).toEqual({ status: 'fulfilled', value: 6 });
  expect(results[7]).toMatchObject({ status: 'rejected', reason: { message: 'seven' } });
  expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(249);
});

it('without a limit, gathers each turn into one batch and lets the batches overlap', async () => {
  const batches: number[][] = [];
  const echo = new Coalescer<number, number>(async (inputs) => {
    batches.push(inputs);
    await new Promise((resolve) => setTimeout(resolve, 20));
    return inputs.map((value) => ({ status: 'fulfilled', value }));
  });
  const first = Promise.all([echo.run(1), echo.run(2)]);
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  const second = echo.run(3);
  // The second turn's call went before the first batch ended.
  await new Promise((resolve) => setTimeout(resolve, 5));
  expect(batches).toEqual([[1, 2], [3]]);
  expect(await first).toEqual([1, 2]);
  expect(await second).toBe(3);
});
