// @ts-check
/**
 * Shared pieces of the benchmarks: bundling as serverless package does, the handlers' environment,
 * consumers on 127.0.0.1, statistics and verdicts. Nothing here comes from test/.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { build } from 'esbuild';
import { queueEnv } from '../scripts/local-queue';
import { PROJECT_DIR, until as pollUntil } from '../scripts/processes';

export { PROJECT_DIR };
export const TABLE_NAME = 'ocloud-notifications-bench';

const require = createRequire(import.meta.url);
/** esbuild.config.cjs: the options serverless.yml's `custom.esbuild.config` names. */
const BUNDLING = /** @type {Record<string, unknown>} */ (require('../esbuild.config.cjs')());
/** The extension of the bundles serverless package deploys (`outputFileExtension`). */
const BUNDLE_EXTENSION = String(BUNDLING.outputFileExtension ?? '.js');

/** A folder of this run's bundles inside the project (so they resolve node_modules), removed on exit. */
mkdirSync(join(PROJECT_DIR, 'bench', '.work'), { recursive: true });
const dir = mkdtempSync(join(PROJECT_DIR, 'bench', '.work', 'run-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));

/**
 * Bundles `entry` (a project file; or `source`, written to the run's folder first) with the options
 * serverless-esbuild passes esbuild for esbuild.config.cjs (its own `exclude` mapped, the rest, `watch` too, dropped).
 * @param {string} entry @param {string} [source]
 */
export async function bundle(entry, source) {
  const file = source === undefined ? join(PROJECT_DIR, entry) : join(dir, `${entry}.ts`);
  if (source !== undefined) writeFileSync(file, source);
  const outfile = join(dir, `${entry.replaceAll('/', '-')}${BUNDLE_EXTENSION}`);
  const {
    exclude,
    packager: _p,
    outputFileExtension: _e,
    outputWorkFolder: _w,
    watch: _o,
    ...options
  } = BUNDLING;
  const external = /** @type {string[]} */ (exclude ?? []);
  const common = { absWorkingDir: PROJECT_DIR, logLevel: /** @type {const} */ ('error'), metafile: true };
  const { metafile } = await build({ ...options, ...common, external, entryPoints: [file], outfile });
  const output = Object.values(metafile?.outputs ?? {})[0];
  return { file: outfile, bytes: output?.bytes ?? 0, inputs: Object.entries(output?.inputs ?? {}) };
}

/** serverless.yml as the framework's own parser reads it (its CloudFormation tags included). */
export async function serverlessYml() {
  const yml = await require('serverless/lib/configuration/read')(join(PROJECT_DIR, 'serverless.yml'));
  const config = yml.custom?.esbuild?.config;
  if (config !== './esbuild.config.cjs') throw new Error(`serverless.yml bundles with ${config}`);
  return /** @type {{ provider: { memorySize?: number }, functions: Record<string, { handler: string, memorySize?: number }> }} */ (
    yml
  );
}

/** Each function of serverless.yml and its handler's source (`functions/x.ts`). @returns {Promise<Record<string, string>>} */
export async function serverlessFunctions() {
  const { functions } = await serverlessYml();
  return Object.fromEntries(
    Object.entries(functions).map(([n, f]) => [n, f.handler.replace(/\.\w+$/, '.ts')]),
  );
}

/** The environment the handlers read (serverless.yml's provider.environment, local stage). */
export function handlerEnv(/** @type {string} */ dynamoEndpoint, /** @type {string} */ queueUrl) {
  const fixed = Object.fromEntries(
    // As in Lambda, where lib/metrics.ts adds the last two to each EMF record.
    `SERVICE_NAME=ocloud-notifications STAGE=local TABLE_NAME=${TABLE_NAME} CONSUMER_AUTH=iam
    ENDPOINT_NETWORK_POLICY=allow-private ENDPOINT_ALLOW_LIST= AWS_NODEJS_CONNECTION_REUSE_ENABLED=1
    AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
    AWS_LAMBDA_FUNCTION_NAME=bench AWS_EXECUTION_ENV=AWS_Lambda_nodejs24.x POWERTOOLS_TRACE_ENABLED=false`
      .split(/\s+/)
      .map((pair) => pair.split('=')),
  );
  const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || 'error';
  return { ...queueEnv(queueUrl), ...fixed, AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint, LOG_LEVEL };
}

/**
 * Active tracing as Lambda sets it up, for a cold start that pays for the tracer as deployed
 * (lib/tracing.ts): its segments go to an X-Ray daemon address nobody reads. The in-process benches
 * run untraced (handlerEnv), as `npm start` does.
 */
export const ACTIVE_TRACING_ENV = {
  POWERTOOLS_TRACE_ENABLED: 'true',
  LAMBDA_TASK_ROOT: PROJECT_DIR,
  _X_AMZN_TRACE_ID: 'Root=1-6b0bcf0c-a1b2c3d4e5f6a1b2c3d4e5f6;Parent=53995c3f42cd8ad8;Sampled=1',
  AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
};

/**
 * Points the handlers at `dynamoEndpoint` and the local queue (their environment, as in Lambda),
 * then loads bench/entry.ts bundled as the functions are: their handlers and composition root.
 * @param {string} dynamoEndpoint @param {string} queueUrl
 */
export async function loadEntry(dynamoEndpoint, queueUrl) {
  Object.assign(process.env, handlerEnv(dynamoEndpoint, queueUrl));
  return import(pathToFileURL((await bundle('bench/entry.ts')).file).href);
}

/**
 * An event of a PTP lock state (or another `kind` of resource, as its `type`) at `address`.
 * @param {string} address @param {string | number} value
 * @param {{ path: string, type: string }} [kind] @param {string} [time]
 */
export function stateEvent(address, value, kind = LOCK_STATE, time = new Date().toISOString()) {
  const value_type = typeof value === 'number' ? 'metric' : 'enumeration';
  const values = [{ data_type: 'notification', ResourceAddress: address, value_type, value }];
  const data = { version: '1.0', values };
  return { id: randomUUID(), specversion: '1.0', source: `/${kind.path}`, type: kind.type, time, data };
}
const LOCK_STATE = { path: 'sync/ptp-status/lock-state', type: 'event.sync.ptp-status.ptp-state-change' };

/** Listens on a free port of 127.0.0.1; resolves to its URL. @param {import('node:net').Server} server */
export async function listenLocal(server) {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  return `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
}

/** The consumers' server (a CommonJS script for a worker thread): 204 at once, never on /hang/. */
const SINK_SOURCE = `const { parentPort } = require('node:worker_threads');
const server = require('node:http').createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    if (req.url.startsWith('/hang/')) return;
    res.writeHead(204).end();
    let id = '';
    try { id = JSON.parse(Buffer.concat(chunks).toString()).id ?? ''; } catch {}
    parentPort.postMessage([req.url, id, performance.timeOrigin + performance.now()]);
  });
});
server.keepAliveTimeout = 10000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));`;

/**
 * Consumers on 127.0.0.1, in a worker thread as a consumer runs apart from the service: each
 * (path, event id)'s first arrival (ms since the epoch), the distinct arrivals under each first
 * path segment, and the repeats.
 */
export async function startSink() {
  const worker = new Worker(SINK_SOURCE, { eval: true });
  /** @type {Map<string, number>} `${path}|${event id}` → first arrival */
  const first = new Map();
  /** @type {Map<string, number>} first path segment → distinct arrivals */
  const kinds = new Map();
  let repeats = 0;
  const port = await new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (message) => {
      if (typeof message === 'number') return resolve(message);
      const [path, id, at] = message;
      const key = `${path}|${id}`;
      if (first.has(key)) repeats += 1;
      else {
        first.set(key, at);
        const kind = path.split('/')[1];
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    first,
    distinct: (/** @type {string} */ kind) => kinds.get(kind) ?? 0,
    repeats: () => repeats,
    /** Notifications that arrived after a newer one of their publisher. @param {Map<string, { series: string, seq: number }>} sequences event id → its publisher and place */
    outOfOrder(sequences) {
      const arrived = [...first].sort((a, b) => a[1] - b[1]);
      /** @type {Map<string, number>} */
      const newest = new Map();
      let late = 0;
      for (const [key] of arrived) {
        const [path, id = ''] = key.split('|');
        const s = sequences.get(id);
        if (!s) continue;
        if ((newest.get(`${path}|${s.series}`) ?? -1) > s.seq) late += 1;
        else newest.set(`${path}|${s.series}`, s.seq);
      }
      return late;
    },
    close: () => worker.terminate(),
  };
}

/** @param {number[]} values @param {number} q 0..1 */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return /** @type {number} */ (sorted[index]);
}
export const median = (/** @type {number[]} */ values) => quantile(values, 0.5);

/** Every verdict printed; a benchmark exits non-zero when one failed. */
export const verdicts = /** @type {{ part: string, figure: string, pass: boolean | null }[]} */ ([]);

/** @param {string} part @param {string} figure @param {number} value @param {number} budget at most */
export function verdict(part, figure, value, budget) {
  const pass = Number.isFinite(value) && value <= budget;
  verdicts.push({ part, figure, pass });
  return `budget ≤ ${budget}  ${pass ? 'PASS' : 'FAIL'}`;
}

/** Runs `task(0 … count-1)` with at most `concurrency` in flight. @param {number} count @param {number} concurrency @param {(i: number) => Promise<unknown>} task */
export async function pool(count, concurrency, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** Resolves once `done()` holds, polling every 5 ms. @param {() => boolean} done @param {string} what */
export const until = (done, what, timeoutMs = 5 * 60_000) =>
  pollUntil(() => done() || undefined, what, timeoutMs, 5);

export const print = (/** @type {string} */ text) => process.stdout.write(`${text}\n`);
export const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs a benchmark, then prints the failed budgets; exits 1 when it or one of its budgets failed,
 * or when it runs past `limitMs`, so that it can never hang.
 * @param {() => Promise<void>} main @param {number} limitMs
 */
export async function runMain(main, limitMs) {
  setTimeout(() => {
    print('benchmark: over its time limit, stopping');
    process.exit(1);
  }, limitMs).unref();
  const error = await main().then(
    () => undefined,
    (e) => e ?? 'failed',
  );
  if (error) print(`benchmark failed: ${error instanceof Error ? error.stack : String(error)}`);
  const failures = verdicts.filter((v) => v.pass === false);
  print(`\n${verdicts.length - failures.length} PASS, ${failures.length} FAIL`);
  for (const v of failures) print(`FAIL  [${v.part}] ${v.figure}`);
  process.exit(error || failures.length > 0 ? 1 : 0);
}
