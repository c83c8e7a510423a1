// @ts-check
/**
 * Shared pieces of `npm run bench`: the esbuild options of serverless.yml, bundling, statistics,
 * verdicts, HTTP API v2 events and the bare DynamoDB client the baselines use.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { build } from 'esbuild';
import { queueEnv } from '../scripts/local-queue.mjs';

export const PROJECT_DIR = fileURLToPath(new URL('..', import.meta.url));
export const TABLE_NAME = 'ocloud-notifications-bench';

const require = createRequire(import.meta.url);

/** esbuild.config.cjs: the options serverless.yml's `custom.esbuild.config` names. */
const BUNDLING = /** @type {Record<string, unknown>} */ (require('../esbuild.config.cjs')());

/** The extension of the bundles serverless package deploys (`outputFileExtension`). */
export const BUNDLE_EXTENSION = String(BUNDLING.outputFileExtension ?? '.js');

/**
 * esbuild's JS API options equal to what serverless-esbuild passes esbuild for the config file:
 * its own options (`exclude`, `packager`, `outputFileExtension`, `outputWorkFolder`) mapped or dropped.
 * @param {Record<string, unknown>} [overrides]
 * @returns {import('esbuild').BuildOptions}
 */
export function esbuildOptions(overrides = {}) {
  const {
    exclude = [],
    packager: _packager,
    outputFileExtension: _extension,
    outputWorkFolder: _workFolder,
    ...options
  } = BUNDLING;
  return {
    ...options,
    external: /** @type {string[]} */ (exclude),
    absWorkingDir: PROJECT_DIR,
    logLevel: 'error',
    ...overrides,
  };
}

/**
 * The handler file of each function in serverless.yml, read by the framework's own parser (with
 * its CloudFormation tags), and a check that the file bundles with esbuild.config.cjs.
 * @returns {Promise<Record<string, string>>} function name → handler source (`functions/x.ts`)
 */
export async function serverlessFunctions() {
  const yml = await readServerlessYml();
  const configFile = yml.custom?.esbuild?.config;
  if (!configFile || resolve(PROJECT_DIR, configFile) !== join(PROJECT_DIR, 'esbuild.config.cjs')) {
    throw new Error(
      'serverless.yml custom.esbuild.config must name ./esbuild.config.cjs, which the bench bundles with',
    );
  }
  /** @type {Record<string, string>} */
  const functions = {};
  for (const [name, fn] of Object.entries(
    /** @type {Record<string, { handler: string }>} */ (yml.functions),
  )) {
    functions[name] = `${fn.handler.slice(0, fn.handler.lastIndexOf('.'))}.ts`;
  }
  return functions;
}

/** serverless.yml as the framework's own parser reads it (with its CloudFormation tags). */
function readServerlessYml() {
  /** @type {(path: string) => Promise<{ custom?: { esbuild?: { config?: string } }, provider: { memorySize?: number }, functions: unknown }>} */
  const read = require('serverless/lib/configuration/read');
  return read(join(PROJECT_DIR, 'serverless.yml'));
}

/** Each function's memory in serverless.yml (MB): its own `memorySize`, else the provider's. */
export async function functionMemoryMb() {
  const yml = await readServerlessYml();
  const functions = /** @type {Record<string, { memorySize?: number }>} */ (yml.functions);
  return Object.fromEntries(
    Object.entries(functions).map(([name, fn]) => [name, fn.memorySize ?? yml.provider.memorySize ?? 1024]),
  );
}

export const BARE_HANDLER_SOURCE = `import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
const client = new DynamoDBClient({});
export const handler = async () => {
  const result = await client.send(new GetItemCommand({
    TableName: process.env.TABLE_NAME,
    Key: { pk: { S: 'HEALTH' }, sk: { S: 'HEALTH' } },
  }));
  return { statusCode: 200, headers: { 'Content-Type': 'text/plain' }, body: result.Item ? 'found' : 'OK' };
};
`;

/**
 * Beside part 2: a bare handler that makes the calls a route's first request makes — the same
 * commands with the same keys through the same SDK clients, and the same POSTs — and nothing
 * else, so that a route's cold start can be told apart from the cost of the calls themselves. The
 * parent builds the plan (the event): steps run one after another, the calls of an `all` step
 * together. `withSqs`: the variant that also enqueues (SendMessageBatch of one message).
 * @typedef {{ command: 'Get' | 'BatchGet' | 'Query' | 'TransactWrite', input: Record<string, unknown> } | { post: string, body: string } | { sqs: string, body: string }} PlanCall
 * @typedef {{ label: string, steps: (PlanCall | { all: PlanCall[] })[] }} SameCallsPlan
 */
/**
 * The same-calls bundles, one per set of AWS clients a function carries besides DynamoDB's, so
 * that each bare side loads the same clients as its function ("with the same clients").
 */
export const SAME_CALLS_BUNDLES = {
  bareSameCalls: { sqs: false, kms: false },
  bareSameCallsSqs: { sqs: true, kms: false },
  bareSameCallsKms: { sqs: false, kms: true },
  bareSameCallsSqsKms: { sqs: true, kms: true },
};

/**
 * The name of the same-calls bundle with the clients `fn` bundles.
 * @param {BundleFile} fn
 */
export function sameCallsBundleFor(fn) {
  const uses = (/** @type {string} */ client) =>
    Object.keys(fn.metafile.inputs).some((input) => input.includes(`@aws-sdk/client-${client}/`));
  const [name] =
    Object.entries(SAME_CALLS_BUNDLES).find(([, c]) => c.sqs === uses('sqs') && c.kms === uses('kms')) ?? [];
  if (!name) throw new Error(`${fn.name}: no same-calls bundle for its clients`);
  return name;
}

/** @param {{ sqs: boolean, kms: boolean }} clients */
export const bareSameCallsSource = ({ sqs: withSqs, kms: withKms }) => `import http from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
${withSqs ? "import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';\nconst sqs = new SQSClient({});" : ''}
${withKms ? "// Loaded as the function loads it; the local stage's data key is a file, so neither calls KMS.\nexport { KMSClient } from '@aws-sdk/client-kms';" : ''}
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });
const COMMANDS = { Get: GetCommand, BatchGet: BatchGetCommand, Query: QueryCommand, TransactWrite: TransactWriteCommand };
const agent = new http.Agent({ keepAlive: true });
const post = (url, body) => new Promise((resolve, reject) => {
  const request = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (response) => {
    response.resume();
    response.on('end', () => resolve(response.statusCode));
  });
  request.on('error', reject);
  request.end(body);
});
const call = (c) =>
  c.post ? post(c.post, c.body)
  : c.sqs ? ${withSqs ? "sqs.send(new SendMessageBatchCommand({ QueueUrl: c.sqs, Entries: [{ Id: '0', MessageBody: c.body }] }))" : 'undefined'}
  : client.send(new COMMANDS[c.command](c.input));
export const handler = async ({ steps }) => {
  for (const step of steps) await (step.all ? Promise.all(step.all.map(call)) : call(step));
  return { statusCode: 200 };
};
`;

/**
 * Listens on a free port of 127.0.0.1.
 * @param {import('node:net').Server} server
 * @returns {Promise<{ port: number, url: string }>} the port and `http://127.0.0.1:<port>`
 */
export function listenLocal(server) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({ port, url: `http://127.0.0.1:${port}` });
    });
  });
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
    parentPort.postMessage([req.url, id, Date.now()]);
  });
});
server.keepAliveTimeout = 10000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));`;

/**
 * Consumers on 127.0.0.1 that answer 204 at once (or never, under /hang/), in a worker thread of
 * their own, as a consumer runs apart from the service: beside the handlers on one event loop they
 * answered late whenever the loop was busy, and the sender's 2 s time-out fired
 * (docs/delivery.md, "Repeats"). Keeps each (path, event id)'s first arrival, the distinct
 * arrivals per first path segment, and the repeats.
 */
export async function startSink() {
  const worker = new Worker(SINK_SOURCE, { eval: true });
  /** @type {Map<string, number>} `${path}|${event id}` → first arrival (ms) */
  const first = new Map();
  /** @type {Map<string, number>} first path segment → distinct arrivals */
  const distinct = new Map();
  let repeats = 0;
  const port = await new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (message) => {
      if (typeof message === 'number') return resolve(message);
      const [path, id, at] = message;
      const key = `${path}|${id}`;
      if (first.has(key)) {
        repeats += 1;
        return;
      }
      first.set(key, at);
      const kind = path.split('/')[1];
      distinct.set(kind, (distinct.get(kind) ?? 0) + 1);
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    first,
    distinct: (/** @type {string} */ kind) => distinct.get(kind) ?? 0,
    repeats: () => repeats,
    close: () => worker.terminate(),
  };
}

/** A temp dir inside the project (so bare sources resolve node_modules), removed on exit. */
export function workDir() {
  const base = join(PROJECT_DIR, 'bench', '.work');
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, 'run-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * @typedef {{ name: string, entry: string, file: string, bytes: number, metafile: import('esbuild').Metafile }} BundleFile
 */

/**
 * Bundles every function of serverless.yml and the bare handlers into `outDir` as serverless
 * package does.
 * @param {string} outDir
 * @returns {Promise<BundleFile[]>}
 */
export async function bundleAll(outDir) {
  const functions = await serverlessFunctions();
  const bareSource = join(outDir, 'bare-handler.mjs');
  writeFileSync(bareSource, BARE_HANDLER_SOURCE);
  const sameCalls = Object.entries(SAME_CALLS_BUNDLES).map(([name, clients]) => {
    const source = join(outDir, `${name}-source.mjs`);
    writeFileSync(source, bareSameCallsSource(clients));
    return [name, source];
  });
  const entries = [...Object.entries(functions), ['bareGetItem', bareSource], ...sameCalls];
  return Promise.all(
    entries.map(async ([name = '', entry = '']) => {
      const file = join(outDir, `${name}${BUNDLE_EXTENSION}`);
      const { metafile } = await build({
        ...esbuildOptions(),
        entryPoints: [entry],
        outfile: file,
        metafile: true,
      });
      return { name, entry, file, bytes: Object.values(metafile.outputs)[0]?.bytes ?? 0, metafile };
    }),
  );
}

/**
 * The SDK as the bare baselines of part 1 use it, bundled as the handlers are, so that each route
 * can load a fresh copy: its code is then exactly as new, and as warm, as the handler's own
 * bundled copy (a long-lived copy shared by all routes would be hotter than any handler's).
 * @param {string} outDir
 */
export async function bundleBareSdk(outDir) {
  const outfile = join(outDir, `bare-sdk${BUNDLE_EXTENSION}`);
  await build({
    ...esbuildOptions(),
    stdin: {
      contents: `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
export { BatchGetCommand, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
export { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
const local = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
export const client = (endpoint) => DynamoDBDocumentClient.from(
  new DynamoDBClient({ endpoint, ...local }),
  { marshallOptions: { removeUndefinedValues: true } },
);
export const sqs = (endpoint) => new SQSClient({ endpoint, ...local });`,
      resolveDir: PROJECT_DIR,
      loader: 'js',
      sourcefile: 'bare-sdk.mjs',
    },
    outfile,
  });
  return outfile;
}

/**
 * A fresh module instance of a bundle, ES module or CommonJS (a copy under another name, so
 * nothing is shared with earlier loads: its own SDK client, configuration and connection pool).
 * @param {string} file
 * @returns {Promise<{ handler: (event: unknown, context: unknown) => Promise<any> }>}
 */
export async function loadFresh(file) {
  const dot = file.lastIndexOf('.');
  const copy = `${file.slice(0, dot)}.${randomUUID().slice(0, 8)}${file.slice(dot)}`;
  writeFileSync(copy, readFileSync(file));
  return import(pathToFileURL(copy).href);
}

/** @param {number[]} values @param {number} q 0..1 */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return /** @type {number} */ (sorted[index]);
}
export const median = (/** @type {number[]} */ values) => quantile(values, 0.5);

/** Verdicts printed by every part; run.mjs exits non-zero when one failed. */
export const verdicts = /** @type {{ part: string, figure: string, pass: boolean | null }[]} */ ([]);

/**
 * @param {string} part
 * @param {string} figure
 * @param {number} value
 * @param {number} budget at most
 */
export function verdict(part, figure, value, budget) {
  const pass = Number.isFinite(value) && value <= budget;
  verdicts.push({ part, figure, pass });
  return `budget ≤ ${budget}  ${pass ? 'PASS' : 'FAIL'}`;
}

/** For a figure the issue sets no budget for. @param {string} part @param {string} figure */
export function informational(part, figure) {
  verdicts.push({ part, figure, pass: null });
  return 'budget: none set (informational)';
}

export const ms = (/** @type {number} */ value) => `${value.toFixed(2)} ms`;
export const ratio = (/** @type {number} */ value) => value.toFixed(3);

/** Rejects after `limitMs`, so no part of the bench can hang. @template T */
export async function bounded(
  /** @type {string} */ name,
  /** @type {number} */ limitMs,
  /** @type {() => Promise<T>} */ run,
) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${name} exceeded its time limit of ${limitMs / 1000} s`)),
      limitMs,
    );
  });
  try {
    return /** @type {T} */ (await Promise.race([run(), limit]));
  } finally {
    clearTimeout(timer);
  }
}

/** The environment the handlers read (serverless.yml provider.environment, local stage). */
export function handlerEnv(/** @type {string} */ endpoint, /** @type {string} */ localQueueUrl) {
  return {
    // Publishing enqueues: the local queue of npm start (run.mjs does not poll it, fanout.mjs does).
    ...queueEnv(localQueueUrl),
    SERVICE_NAME: 'ocloud-notifications',
    STAGE: 'local',
    TABLE_NAME,
    CONSUMER_AUTH: 'iam',
    ENDPOINT_NETWORK_POLICY: 'allow-private',
    ENDPOINT_ALLOW_LIST: '',
    AWS_NODEJS_CONNECTION_REUSE_ENABLED: '1',
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // As in Lambda, where lib/metrics.ts adds these to each EMF record.
    AWS_LAMBDA_FUNCTION_NAME: 'bench',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  };
}

/**
 * The tests' own builders (test/support/http-event.ts, fixtures.ts), the service's id derivation
 * and its table keys, bundled once so that the bench sends exactly the events, contexts and
 * payloads the tests do, and its baselines use the same keys as the handlers.
 */
const support = await (async () => {
  const result = await build({
    stdin: {
      contents:
        "export { httpApiEvent, lambdaContext } from './test/support/http-event';\n" +
        "export { lockStateEvent } from './test/support/fixtures';\n" +
        "export { publisherIdFor, subscriptionIdFor } from './lib/domain/ids';\n" +
        "export { keys } from './lib/store/keys';\n" +
        "export { acceptEventWrites, createPublisherWrites, deletePublisherWrites, deleteSubscriptionWrites, retireAllWrites, subscribeWrites } from './lib/store/transactions';\n" +
        "export { ownerState } from './lib/store/owners';\n" +
        "export { possiblePublisherAddresses, validateEvent } from './lib/domain/event';\n" +
        "export { loadConfig } from './lib/config';\n",
      resolveDir: PROJECT_DIR,
      loader: 'ts',
      sourcefile: 'bench-support.ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.text ?? '';
  return import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
})();

/**
 * A real-shaped API Gateway HTTP API (payload 2.0) event, signed in by IAM as `principal`.
 * @param {{ method: string, path: string, pathParameters?: Record<string, string>, body?: unknown, principal?: string }} options
 */
export function httpApiEvent({ principal = 'arn:aws:iam::123456789012:user/bench', ...options }) {
  return support.httpApiEvent({ ...options, authorizer: { iam: { userArn: principal } } });
}

/** @returns {import('aws-lambda').Context} */
export const lambdaContext = () => support.lambdaContext();

/**
 * A valid PTP lock-state event for the node `node` (an address prefix); HOLDOVER unless `value`.
 * @param {string} node
 * @param {string} time
 * @param {'LOCKED' | 'HOLDOVER' | 'FREERUN'} [value]
 */
export const lockStateEvent = (node, time, value) => support.lockStateEvent({ node, time, value });

/**
 * The table's keys as lib/store/keys.ts builds them; the baselines restate the store's commands,
 * not its layout.
 * @type {typeof import('../lib/store/keys').keys}
 */
export const keys = support.keys;

/**
 * The publish transaction exactly as the store sends it, for an event the service has validated
 * (its time key) with the de-duplication window of the handlers' configuration.
 * @param {string} publisherId @param {unknown} body the event @param {Date} acceptedAt
 * @returns {import('@aws-sdk/lib-dynamodb').TransactWriteCommandInput}
 */
export function acceptEventTransaction(publisherId, body, acceptedAt) {
  /** @type {import('../lib/domain/event').ValidatedEvent} */
  const { event, timeKey } = support.validateEvent(body);
  /** @type {import('../lib/config').Config} */
  const config = support.loadConfig(handlerEnv('', ''));
  /** @type {import('../lib/domain/model').EventToAccept} */
  const accepted = {
    publisherId,
    event,
    timeKey,
    acceptedAt: acceptedAt.toISOString(),
    dedupExpiresAt: Math.floor(acceptedAt.getTime() / 1000) + config.dedupTtlSeconds,
    publisherAddresses: support.possiblePublisherAddresses(event.data.values, event.source),
  };
  return { TransactItems: support.acceptEventWrites(TABLE_NAME, accepted) };
}

/**
 * The subscribe transaction exactly as the store sends it, generation 0, with the delivery cursor
 * of the state its initial notification carried. `sealedSecret` stands in for the sealed signing
 * secret (the baseline writes the same item, without the encryption).
 * @param {{ id: string, owner: string, address: string, endpoint: string, createdAt: string, sealedSecret: string,
 *   initial: { resourceAddress: string, event: unknown } }} s
 * @returns {import('@aws-sdk/lib-dynamodb').TransactWriteCommandInput}
 */
export function subscribeTransaction({ id, owner, address, endpoint, createdAt, sealedSecret, initial }) {
  /** @type {import('../lib/domain/event').ValidatedEvent} */
  const { event, timeKey } = support.validateEvent(initial.event);
  const subscription = { id, owner, resourceAddress: address, endpointUri: endpoint, createdAt };
  return {
    TransactItems: support.subscribeWrites(TABLE_NAME, subscription, 0, {
      sealedSecret,
      initial: { resourceAddress: initial.resourceAddress, event, timeKey },
      nowMs: Date.now(),
    }),
  };
}

/** A publisher create exactly as the store sends it. @param {string} id @param {string} address */
export function createPublisherTransaction(id, address) {
  const publisher = {
    id,
    resourceAddress: address,
    endpointUri: undefined,
    createdAt: new Date().toISOString(),
  };
  /** @type {import('@aws-sdk/lib-dynamodb').TransactWriteCommandInput} */
  const input = { TransactItems: support.createPublisherWrites(TABLE_NAME, publisher) };
  return input;
}

/** A publisher delete exactly as the store sends it. @param {string} id */
export function deletePublisherTransaction(id) {
  /** @type {import('@aws-sdk/lib-dynamodb').TransactWriteCommandInput} */
  const input = { TransactItems: support.deletePublisherWrites(TABLE_NAME, id) };
  return input;
}

/** A subscription delete exactly as the store sends it, generation 0. @param {string} id @param {string} owner */
export function deleteSubscriptionTransaction(id, owner) {
  /** @type {import('@aws-sdk/lib-dynamodb').TransactWriteCommandInput} */
  const input = { TransactItems: support.deleteSubscriptionWrites(TABLE_NAME, id, owner, 0) };
  return input;
}

/**
 * Delete-all exactly as the store sends it, from the owner's count shards as a query read them.
 * @param {string} owner @param {Record<string, unknown>[]} shardItems
 * @returns {import('@aws-sdk/lib-dynamodb').TransactWriteCommandInput}
 */
export function retireAllTransaction(owner, shardItems) {
  /** @type {Map<string, import('../lib/store/owners').OwnerState>} */
  const shards = new Map(shardItems.map((item) => [String(item.sk), support.ownerState(item)]));
  const gen = Math.max(0, ...[...shards.values()].map((shard) => shard.gen));
  return { TransactItems: support.retireAllWrites(TABLE_NAME, owner, shards, gen + 1) };
}

/** The id, hence the item keys, the service gives a publisher at `address`. */
export const publisherIdFor = (/** @type {string} */ address) => support.publisherIdFor(address);

/** The id the service gives a subscription of `owner` to `address` with `endpoint`. */
export const subscriptionIdFor = (
  /** @type {string} */ owner,
  /** @type {string} */ address,
  /** @type {string} */ endpoint,
) => support.subscriptionIdFor(owner, address, endpoint);

/** Strictly increasing event times, so every publish is new. */
let clock = Date.parse('2026-01-01T00:00:00Z');
export function nextTime() {
  clock += 1000;
  return new Date(clock).toISOString();
}

export const unique = (/** @type {string} */ prefix) => `${prefix}-${randomUUID().slice(0, 8)}`;

/** Runs `task(0 … count-1)` with at most `concurrency` in flight. @param {number} count @param {number} concurrency @param {(i: number) => Promise<unknown>} task */
export async function pool(count, concurrency, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/**
 * Points the handlers at `endpoint` and the local queue (their environment, as in Lambda), then
 * bundles `entry` (a bench/*-entry.ts, no TypeScript runner is installed) and loads it.
 * @param {string} entry file name under bench/ @param {string} endpoint @param {string} queueUrl
 */
export async function loadEntry(entry, endpoint, queueUrl) {
  Object.assign(process.env, {
    ...handlerEnv(endpoint, queueUrl),
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'error',
  });
  const outfile = join(workDir(), entry.replace(/\.ts$/, BUNDLE_EXTENSION));
  await build({
    ...esbuildOptions(),
    entryPoints: [fileURLToPath(new URL(`./${entry}`, import.meta.url))],
    outfile,
  });
  return import(pathToFileURL(outfile).href);
}

/** Resolves once `done()` holds, polling every 5 ms. @param {() => boolean} done @param {string} what */
export async function until(done, what, timeoutMs = 5 * 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const print = (/** @type {string} */ text) => process.stdout.write(`${text}\n`);
export const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs a benchmark; exits 1 when it failed or one of its budgets did. @param {() => Promise<void>} main */
export function runMain(main) {
  main().then(
    () => process.exit(verdicts.some((v) => v.pass === false) ? 1 : 0),
    (error) => {
      print(`benchmark failed: ${error instanceof Error ? error.stack : String(error)}`);
      process.exit(1);
    },
  );
}

/** Ends the process with status 1 if the benchmark runs past `limitMs`, so it can never hang. */
export function exitAfter(/** @type {number} */ limitMs) {
  setTimeout(() => {
    process.stdout.write('benchmark: over its time limit, stopping\n');
    process.exit(1);
  }, limitMs).unref();
}
