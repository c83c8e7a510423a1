// @ts-check
/**
 * Part 2, cold start and bundle size: for each function's bundle, fresh Node processes that load
 * it and serve one request against DynamoDB Local, alternated with fresh processes running the
 * bare handler (one GetItem with the same SDK), bundled the same way.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { informational, median, ms, ratio, verdict } from './common.mjs';

export const SIZE_BUDGET = 1.15;
export const START_BUDGET = 1.2;
const CHILD = fileURLToPath(new URL('./cold-child.mjs', import.meta.url));

/**
 * @param {string} file
 * @param {unknown} event
 * @param {Record<string, string>} env
 * @returns {Promise<{ wallMs: number, ms: number, loadMs: number, status: number | null }>}
 */
function coldStart(file, event, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CHILD, file], {
      env: { ...env, BENCH_EVENT: JSON.stringify(event) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      const wallMs = performance.now() - started;
      const line = out.split('\n').find((l) => l.startsWith('@@bench '));
      if (!line) return reject(new Error(`cold start of ${file} failed (${code}):\n${out}\n${err}`));
      resolve({ wallMs, ...JSON.parse(line.slice(8)) });
    });
  });
}

/**
 * @param {{ bundles: { name: string, file: string, bytes: number }[], routes: import('./routes.mjs').Route[],
 *   fixtures: import('./routes.mjs').Fixtures, env: Record<string, string>, print: (line: string) => void, runs: number }} options
 */
export async function coldStarts({ bundles, routes, fixtures, env, print, runs }) {
  const bare = bundles.find((b) => b.name === 'bareGetItem');
  const bareSubscribe = bundles.find((b) => b.name === 'bareSubscribe');
  if (!bare || !bareSubscribe) throw new Error('no bare bundle');
  const bareEvent = {};
  print(
    runs === 0
      ? '\n## 2. Bundle size (BENCH_SIZES_ONLY: cold starts not timed)'
      : `\n## 2. Cold start and bundle size (${runs} fresh processes each side per function, alternated; time = spawn → first answer)`,
  );
  print(`bare GetItem handler bundle: ${(bare.bytes / 1024).toFixed(1)} KiB`);
  print('function                 bundle KiB  size ratio              start ms (fn / bare)   start ratio');
  for (const fn of bundles) {
    if (fn.name.startsWith('bare')) continue;
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
    /** Cold starts of a bare handler making the same calls, where the route has one (subscribe). */
    const sameCalls = [];
    for (let i = 0; i < runs; i++) {
      const sample = await route.sample(fixtures);
      if (sample.sameCallsEvent) {
        const result = await coldStart(bareSubscribe.file, sample.sameCallsEvent, env);
        if (result.status !== 201) throw new Error(`bare subscribe: cold request answered ${result.status}`);
        sameCalls.push(result.wallMs);
      }
      const pair = [];
      // Alternate which starts first.
      for (const side of i % 2 === 0 ? ['fn', 'bare'] : ['bare', 'fn']) {
        const result =
          side === 'fn'
            ? await coldStart(fn.file, sample.event, env)
            : await coldStart(bare.file, bareEvent, env);
        if (side === 'fn' && sample.expect !== null && result.status !== sample.expect) {
          throw new Error(`${fn.name}: cold request answered ${result.status}, expected ${sample.expect}`);
        }
        pair.push([side, result.wallMs]);
      }
      await sample.cleanup?.();
      const f = Number(pair.find(([s]) => s === 'fn')?.[1]);
      const b = Number(pair.find(([s]) => s === 'bare')?.[1]);
      ours.push(f);
      base.push(b);
      ratios.push(f / b);
    }
    const start = median(ratios);
    print(
      `${fn.name.padEnd(24)} ${(fn.bytes / 1024).toFixed(1).padStart(10)}  ${size.toFixed(4)} ${verdict('2 bundle size', fn.name, size, SIZE_BUDGET).padEnd(18)} ${`${ms(median(ours))} / ${ms(median(base))}`.padEnd(22)} ${ratio(start)} ${verdict('2 cold start', fn.name, start, START_BUDGET)}`,
    );
    if (sameCalls.length > 0) {
      const figure = `${fn.name} vs a bare handler making the same calls`;
      print(
        `${'  same calls, bare (BatchGetItem + POST + TransactWriteItems)'.padEnd(65)} ${ms(median(sameCalls)).padEnd(22)} ${ratio(median(ours) / median(sameCalls))} ${informational('2 cold start', figure)}`,
      );
    }
  }
}
