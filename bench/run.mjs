// @ts-check
/**
 * `npm run bench`: handler overhead, cold start and bundle size, store calls and cost — each
 * beside a bare baseline measured in the same run, each bounded in time, all traffic on 127.0.0.1.
 * (Throughput under load is not measured here: locally it would time serverless offline, not the
 * service; API Gateway and Lambda scaling set it once deployed.) Prints every figure with its budget and PASS/FAIL; exits 1 when
 * a budget fails. `node bench/run.mjs 1 3` runs only parts 1 and 3; BENCH_QUICK=1 shortens runs;
 * BENCH_SIZES_ONLY=1 makes part 2 report bundle sizes (budget: 64 KiB of our own code and middy
 * per function, the AWS SDK reported beside it) without timing cold starts. Diagnostics for
 * part 2: BENCH_FUNCTIONS=createSubscription,publishEvent times only those functions, and
 * BENCH_TRACE=1 prints each cold start's timeline (loaded, each HTTP request, answered).
 */
import { openSync, writeSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { ensureTable, startDynamoDbLocal } from '../scripts/dynamodb-local.mjs';
import { startLocalQueue } from '../scripts/local-queue.mjs';
import { storeCapacity } from './capacity.mjs';
import { coldStarts } from './coldstart.mjs';
import {
  bounded,
  bundleAll,
  bundleBareSdk,
  handlerEnv,
  listenLocal,
  loadFresh,
  TABLE_NAME,
  verdicts,
  workDir,
} from './common.mjs';
import { handlerOverhead } from './overhead.mjs';
import { Fixtures, ROUTES } from './routes.mjs';

const quick = process.env.BENCH_QUICK === '1';
// Bundle sizes and store calls are exact, so CI checks them (`BENCH_SIZES_ONLY=1 node bench/run.mjs 2 3`);
// timings are left to runs on a quiet machine.
const sizesOnly = process.env.BENCH_SIZES_ONLY === '1';
const parts = new Set(process.argv.slice(2).map(Number));
const wanted = (/** @type {number} */ n) => parts.size === 0 || parts.has(n);

// Handlers log a JSON line per request to stdout, as in Lambda. Keep that cost (the line is still
// built and written) but send it to /dev/null; the bench's own lines go to the real stdout.
const realStdout = process.stdout.write.bind(process.stdout);
const print = (/** @type {string} */ line) => {
  realStdout(`${line}\n`);
};
const devNull = openSync('/dev/null', 'w');
/** @type {(chunk: string | Uint8Array, ...rest: unknown[]) => boolean} */
const toDevNull = (chunk, ...rest) => {
  if (typeof chunk === 'string') writeSync(devNull, chunk);
  else writeSync(devNull, chunk);
  const callback = rest.find((r) => typeof r === 'function');
  if (callback) callback();
  return true;
};
process.stdout.write = /** @type {typeof process.stdout.write} */ (toDevNull);

print(`# npm run bench — ${new Date().toISOString()}`);
print(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}, load avg ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);

const db = await startDynamoDbLocal({ inMemory: true, quiet: true });
const localQueue = await startLocalQueue({ log: () => undefined });
/** @type {http.Server | undefined} */
let consumer;
let failed = false;
try {
  await ensureTable({ endpoint: db.endpoint, tableName: TABLE_NAME });
  const env = handlerEnv(db.endpoint, localQueue.url);
  Object.assign(process.env, env);

  // A consumer endpoint on 127.0.0.1 for the sanity-check POST; it answers 204 and counts.
  let consumerHits = 0;
  consumer = http.createServer((req, res) => {
    consumerHits++;
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  consumer.keepAliveTimeout = 60_000;
  const consumerUrl = `${(await listenLocal(consumer)).url}/events`;

  const dir = workDir();
  const bundles = await bounded('bundling', 120_000, () => bundleAll(dir));
  /** @type {Record<string, import('./routes.mjs').Bundle>} */
  const handlers = {};
  for (const b of bundles) if (!b.name.startsWith('bare')) handlers[b.name] = await loadFresh(b.file);
  const fixtures = new Fixtures(handlers, consumerUrl, localQueue.url);
  await bounded('seeding', 60_000, () => fixtures.seed());

  const bareSdkFile = await bundleBareSdk(dir);
  if (wanted(1)) {
    await bounded('part 1', 300_000, () =>
      handlerOverhead({
        routes: ROUTES,
        fixtures,
        handlers,
        print,
        rounds: quick ? 3 : 9,
        perRound: quick ? 20 : 80,
        warmup: quick ? 5 : 20,
        bareSdkFile,
        endpoint: db.endpoint,
      }),
    );
  }
  if (wanted(2)) {
    await bounded('part 2', 900_000, () =>
      coldStarts({
        bundles,
        routes: ROUTES,
        fixtures,
        handlers,
        bareSdkFile,
        endpoint: db.endpoint,
        env: { PATH: process.env.PATH ?? '', ...env },
        print,
        runs: sizesOnly ? 0 : quick ? 3 : 21,
        warmup: quick ? 10 : 40,
      }),
    );
  }
  if (wanted(3)) {
    /** @type {Record<string, string>} */
    const files = Object.fromEntries(bundles.map((b) => [b.name, b.file]));
    await bounded('part 3', 120_000, () =>
      storeCapacity({
        routes: ROUTES,
        fixtures,
        bundles: files,
        endpoint: db.endpoint,
        consumerHits: () => consumerHits,
        print,
      }),
    );
  }
} catch (error) {
  print(`\nbench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  failed = true;
} finally {
  consumer?.closeAllConnections();
  consumer?.close();
  await localQueue.stop();
  await db.stop();
}

const failures = verdicts.filter((v) => v.pass === false);
print(
  `\n## Summary: ${verdicts.filter((v) => v.pass === true).length} PASS, ${failures.length} FAIL, ${verdicts.filter((v) => v.pass === null).length} informational`,
);
for (const f of failures) print(`FAIL  [${f.part}] ${f.figure}`);
process.exit(failed || failures.length > 0 ? 1 : 0);
