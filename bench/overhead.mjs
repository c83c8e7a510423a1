// @ts-check
/**
 * Part 1, handler overhead: each route's bundled handler invoked in-process with real HTTP API v2
 * events against DynamoDB Local, interleaved with the bare store calls the route has to make, made
 * through a fresh copy of the SDK bundled the same way.
 * Verdict: median over rounds of (median handler latency / median bare latency) in that round.
 */
import { loadFresh, median, ms, quantile, ratio, verdict } from './common.mjs';
import { runSample, warmUp } from './routes.mjs';

export const OVERHEAD_BUDGET = 1.15;

/**
 * @param {{ routes: import('./routes.mjs').Route[], fixtures: import('./routes.mjs').Fixtures,
 *   handlers: Record<string, import('./routes.mjs').Bundle>, print: (line: string) => void,
 *   rounds: number, perRound: number, warmup: number, bareSdkFile: string, endpoint: string }} options
 */
export async function handlerOverhead({
  routes,
  fixtures,
  handlers,
  print,
  rounds,
  perRound,
  warmup,
  bareSdkFile,
  endpoint,
}) {
  print(
    `\n## 1. Handler overhead (in-process, DynamoDB Local; ${rounds} rounds × ${perRound} requests each side, interleaved)`,
  );
  print('route                              handler p50/p99          bare p50/p99             ratio p50');
  for (const route of routes) {
    const bundle = handlers[route.fn];
    if (!bundle) throw new Error(`no bundle for ${route.fn}`);
    const bareSdk = /** @type {any} */ (await loadFresh(bareSdkFile));
    fixtures.useBareSdk({ client: bareSdk.client(endpoint), sdk: bareSdk });
    await warmUp([route], fixtures, handlers, warmup);
    const all = { handler: /** @type {number[]} */ ([]), bare: /** @type {number[]} */ ([]) };
    const roundRatios = [];
    const count = Math.ceil(perRound * (route.sampleShare ?? 1));
    for (let round = 0; round < rounds; round++) {
      const times = { handler: /** @type {number[]} */ ([]), bare: /** @type {number[]} */ ([]) };
      for (let i = 0; i < count; i++) {
        const sample = await route.sample(fixtures);
        // Alternate which goes first, so neither side always meets a warmer store.
        const order =
          i % 2 === 0
            ? /** @type {const} */ (['handler', 'bare'])
            : /** @type {const} */ (['bare', 'handler']);
        for (const side of order) {
          const started = performance.now();
          if (side === 'handler') await runSample(route, bundle, sample);
          else await sample.bare();
          times[side].push(performance.now() - started);
        }
        await sample.cleanup?.();
      }
      roundRatios.push(median(times.handler) / median(times.bare));
      all.handler.push(...times.handler);
      all.bare.push(...times.bare);
    }
    const value = median(roundRatios);
    print(
      `${route.name.padEnd(34)} ${`${ms(median(all.handler))} / ${ms(quantile(all.handler, 0.99))}`.padEnd(24)} ${`${ms(median(all.bare))} / ${ms(quantile(all.bare, 0.99))}`.padEnd(24)} ${ratio(value)}  ${verdict('1 overhead', route.name, value, OVERHEAD_BUDGET)}`,
    );
  }
}
