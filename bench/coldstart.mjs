// @ts-check
/**
 * Part 2, cold start and bundle size: for each function's bundle, fresh Node processes that load
 * it and serve one request against DynamoDB Local, alternated with fresh processes running the
 * bare handler (one GetItem with the same SDK), bundled the same way.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { informational, loadFresh, median, ms, ratio, verdict } from './common.mjs';
import { warmUp } from './routes.mjs';

export const SIZE_BUDGET = 1.15;
export const START_BUDGET = 1.2;
const CHILD = fileURLToPath(new URL('./cold-child.mjs', import.meta.url));

/**
 * @param {string} file
 * @param {unknown} event
 * @param {Record<string, string>} env
 * @returns {Promise<{ wallMs: number, ms: number, loadMs: number, status: number | null }>} wallMs: spawn → answer
 */
function coldStart(file, event, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CHILD, file], {
      env: { ...env, BENCH_EVENT: JSON.stringify(event), BENCH_TRACE: process.env.BENCH_TRACE ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    /** When the answer reached this process; the child's exit (another ~13 ms) is not part of a cold start. */
    let answeredAt = 0;
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (answeredAt === 0 && /\n@@bench [^\n]*\n/.test(out)) answeredAt = performance.now();
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('@@bench '));
      if (!line) return reject(new Error(`cold start of ${file} failed (${code}):\n${out}\n${err}`));
      resolve({ wallMs: answeredAt - started, ...JSON.parse(line.slice(8)) });
    });
  });
}

/**
 * BENCH_TRACE=1: one line per cold start with its timeline (ms from the process' time origin):
 * bundle loaded, each outgoing HTTP request's start → end, answer.
 * @param {{ wallMs: number, ms: number, loadMs: number, trace?: { started: number, ended: number, target: string }[] }} result
 */
function traceLine(result) {
  const calls = (result.trace ?? []).map(
    (t) =>
      `${t.started.toFixed(1)}→${t.ended.toFixed(1)} ${t.target.replace('POST / DynamoDB_20120810.', '')}`,
  );
  return `wall ${result.wallMs.toFixed(1)} loaded ${result.loadMs.toFixed(1)} answered ${result.ms.toFixed(1)} | ${calls.join(' | ')}`;
}

/**
 * @param {{ bundles: { name: string, file: string, bytes: number }[], routes: import('./routes.mjs').Route[],
 *   fixtures: import('./routes.mjs').Fixtures, handlers: Record<string, import('./routes.mjs').Bundle>,
 *   bareSdkFile: string, endpoint: string, env: Record<string, string>, print: (line: string) => void,
 *   runs: number, warmup: number }} options
 */
export async function coldStarts({
  bundles,
  routes,
  fixtures,
  handlers,
  bareSdkFile,
  endpoint,
  env,
  print,
  runs,
  warmup,
}) {
  const bare = bundles.find((b) => b.name === 'bareGetItem');
  const bareSameCalls = bundles.find((b) => b.name === 'bareSameCalls');
  if (!bare || !bareSameCalls) throw new Error('no bare bundle');
  const bareEvent = {};
  /** BENCH_FUNCTIONS=a,b times only those functions (a diagnostic run; the summary then covers only them). */
  const only = process.env.BENCH_FUNCTIONS?.split(',');
  print(
    runs === 0
      ? '\n## 2. Bundle size (BENCH_SIZES_ONLY: cold starts not timed)'
      : `\n## 2. Cold start and bundle size (${runs} fresh processes each side per function, alternated; time = spawn → first answer)`,
  );
  if (runs > 0) {
    const bareSdk = /** @type {any} */ (loadFresh(bareSdkFile));
    fixtures.useBareSdk({ client: bareSdk.client(endpoint), sdk: bareSdk });
    // DynamoDB Local is a JVM: until its JIT has compiled the paths a request takes (a transaction,
    // a batch read), each costs it several times what it costs later, and that would be charged
    // to whichever side makes more kinds of call.
    await warmUp(routes, fixtures, handlers, warmup);
    print(`(DynamoDB Local warmed first: every route's request ${warmup} times in-process)`);
  }
  print(`bare GetItem handler bundle: ${(bare.bytes / 1024).toFixed(1)} KiB`);
  print('function                 bundle KiB  size ratio              start ms (fn / bare)   start ratio');
  for (const fn of bundles) {
    if (fn.name.startsWith('bare') || (only && !only.includes(fn.name))) continue;
    const route = routes.find((r) => r.fn === fn.name);
    // The queue- and schedule-driven functions (fanOut, deliver, emitGauges) and the $default
    // route serve no API request to time; their bundle sizes are still printed.
    if (!route) {
      print(
        `${fn.name.padEnd(24)} ${(fn.bytes / 1024).toFixed(1).padStart(10)}  (not an API route: size only)`,
      );
      continue;
    }
    const size = fn.bytes / bare.bytes;
    if (runs === 0) {
      print(
        `${fn.name.padEnd(24)} ${(fn.bytes / 1024).toFixed(1).padStart(10)}  ${size.toFixed(4)} ${verdict('2 bundle size', fn.name, size, SIZE_BUDGET)}  (cold starts not timed)`,
      );
      continue;
    }
    const ours = [];
    const base = [];
    const ratios = [];
    /** Where the route has a same-calls plan: its cold starts, and ours over them, pair by pair. */
    const sameCalls = [];
    const sameCallsRatios = [];
    let sameCallsLabel = '';
    for (let i = 0; i < runs; i++) {
      const sample = await route.sample(fixtures);
      const plan = await sample.sameCalls?.();
      /** @type {('fn' | 'bare' | 'same')[]} */
      const sides = plan ? ['fn', 'bare', 'same'] : ['fn', 'bare'];
      // Alternate which starts first, so that neither side always meets a warmer machine.
      if (i % 2 === 1) sides.reverse();
      /** @type {Record<string, number>} */
      const took = {};
      for (const side of sides) {
        const [file, event] =
          side === 'fn'
            ? [fn.file, sample.event]
            : side === 'bare'
              ? [bare.file, bareEvent]
              : [bareSameCalls.file, plan];
        const result = await coldStart(file, event, env);
        const expected = side === 'fn' ? sample.expect : 200;
        if (expected !== null && result.status !== expected) {
          throw new Error(
            `${side === 'fn' ? fn.name : side}: cold request answered ${result.status}, expected ${expected}`,
          );
        }
        took[side] = result.wallMs;
        if (result.trace) print(`  trace ${side} ${traceLine(result)}`);
      }
      // Untimed: consumes what the sample seeded for part 1's bare side (a publisher to delete,
      // for one), which cleanup leaves to it, so that later figures read the seeded table only.
      await sample.bare();
      await sample.cleanup?.();
      const f = Number(took.fn);
      ours.push(f);
      base.push(Number(took.bare));
      ratios.push(f / Number(took.bare));
      if (plan) {
        sameCallsLabel = plan.label;
        sameCalls.push(Number(took.same));
        sameCallsRatios.push(f / Number(took.same));
      }
    }
    const start = median(ratios);
    print(
      `${fn.name.padEnd(24)} ${(fn.bytes / 1024).toFixed(1).padStart(10)}  ${size.toFixed(4)} ${verdict('2 bundle size', fn.name, size, SIZE_BUDGET).padEnd(18)} ${`${ms(median(ours))} / ${ms(median(base))}`.padEnd(22)} ${ratio(start)} ${verdict('2 cold start', fn.name, start, START_BUDGET)}`,
    );
    if (sameCalls.length > 0) {
      const figure = `${fn.name} vs a bare handler making the same calls`;
      print(
        `${`  same calls, bare: ${sameCallsLabel}`.padEnd(65)} ${ms(median(sameCalls)).padEnd(22)} ${ratio(median(sameCallsRatios))} ${informational('2 cold start', figure)}`,
      );
    }
  }
}
