// @ts-check
/**
 * `npm run bench`: every function's bundle by source, with the exact budget on our own code and
 * middy (BENCH_SIZES_ONLY=1: only that, as .ci/run checks it); then each API route's cold start —
 * a fresh Node process loading the function's bundle and serving one request, against DynamoDB
 * Local and the local queue — beside a bare handler bundled the same way with the same AWS clients
 * that makes the calls the route's first request made, as recorded from the product's own clients
 * (bench/aws-calls.mjs), and nothing else. ROUNDS (default 21) fresh processes a side, alternating.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { ensureTable, startDynamoDbLocal } from '../scripts/dynamodb-local.mjs';
import { startLocalQueue } from '../scripts/local-queue.mjs';
import { now, recordAwsCalls } from './aws-calls.mjs';
import * as bench from './common.mjs';

const { median, print, verdict } = bench;
const OWN_CODE_BUDGET_KIB = 64;
const SAME_CALLS_BUDGET = 1.1;
const ROUNDS = Number(process.env.ROUNDS || 21);
const PRINCIPAL = 'arn:aws:iam::123456789012:user/bench';
const CLIENTS = { DynamoDB: 'dynamodb', SQS: 'sqs', KMS: 'kms' };
const dir = bench.workDir();

/** Bundles a file or source text as serverless package does. @param {string} name @param {{ file: string } | { source: string }} entry */
async function bundle(name, entry) {
  const outfile = join(dir, `${name}${bench.BUNDLE_EXTENSION}`);
  const input =
    'file' in entry
      ? { entryPoints: [entry.file] }
      : {
          stdin: {
            contents: entry.source,
            resolveDir: bench.PROJECT_DIR,
            loader: /** @type {const} */ ('ts'),
          },
        };
  const { metafile } = await build(bench.esbuildOptions({ ...input, outfile, metafile: true }));
  const output = Object.values(metafile?.outputs ?? {})[0];
  return { file: outfile, bytes: output?.bytes ?? 0, inputs: output?.inputs ?? {} };
}

/** Bytes by source: our code (no package) and middy, the AWS SDK, the other packages. @param {Record<string, { bytesInOutput: number }>} inputs */
function bySource(inputs) {
  const split = { own: 0, sdk: 0, other: 0 };
  for (const [path, { bytesInOutput }] of Object.entries(inputs)) {
    const inPackage = path.includes('node_modules/') ? (path.split('node_modules/').at(-1) ?? '') : '@middy/';
    const sdk = /^@(aws-sdk|smithy|aws|aws-crypto)\//.test(inPackage);
    split[inPackage.startsWith('@middy/') ? 'own' : sdk ? 'sdk' : 'other'] += bytesInOutput;
  }
  return split;
}
const kib = (/** @type {number} */ bytes) => (bytes / 1024).toFixed(1);

/** A child that loads a bundle as the Lambda runtime does (import()) and serves one event. */
const CHILD = `const { handler } = await import(process.argv[1]);
const response = await handler(JSON.parse(process.env.BENCH_EVENT), { awsRequestId: 'cold', getRemainingTimeInMillis: () => 10000 });
process.stdout.write('\\n@@' + (response?.statusCode ?? null) + '\\n', () => process.exit(0));`;

/** One cold start, spawn → answer in ms. @param {string} file @param {unknown} event @param {Record<string, string>} env */
function coldStart(file, event, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const args = ['--input-type=module', '-e', CHILD, pathToFileURL(file).href];
    const child = spawn(process.execPath, args, { env: { ...env, BENCH_EVENT: JSON.stringify(event) } });
    let out = '';
    let ms = 0;
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (!ms && /\n@@\w+\n/.test(out)) ms = performance.now() - started;
    });
    child.stderr.on('data', (chunk) => (out += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', () => {
      clearTimeout(timer);
      const status = /\n@@(\w+)\n/.exec(out)?.[1];
      if (!status) reject(new Error(`cold start of ${file} failed:\n${out}`));
      else resolve({ ms, status: Number(status) });
    });
  });
}

/**
 * A bare handler: the function's AWS clients (the document client's too), and the calls of
 * `plan`, each step's at once, one step after another; a refused write counts as made.
 * @param {{ service: string, command: string }[][]} plan @param {string[]} clients `dynamodb`, `sqs`, `kms`
 */
function bareSource(plan, clients) {
  const commands = [...new Set(plan.flat().map((c) => `${c.service}.${c.command}`))].filter(
    (c) => !c.startsWith('http'),
  );
  const imports = clients.map((client) => {
    const name = { dynamodb: 'DynamoDBClient', sqs: 'SQSClient', kms: 'KMSClient' }[client];
    const used = commands.filter((c) => CLIENTS[/** @type {'SQS'} */ (c.split('.')[0])] === client);
    const names = [name, ...used.map((c) => `${c.split('.')[1]}Command`)].join(', ');
    return `import { ${names} } from '@aws-sdk/client-${client}';`;
  });
  return `import http from 'node:http';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
${imports.join('\n')}
const clients = { DynamoDB: DynamoDBDocumentClient.from(new DynamoDBClient({})), ${clients.includes('sqs') ? 'SQS: new SQSClient({})' : ''} };
${clients.includes('kms') ? 'export const kms = new KMSClient({});' : ''}
const commands = { ${commands.map((c) => `'${c}': ${c.split('.')[1]}Command`).join(', ')} };
const post = (c) => new Promise((resolve) => http.request(c.url, { method: 'POST', headers: { 'content-type': 'application/json' } },
  (r) => r.resume().on('end', resolve)).end(c.body));
const call = (c) => c.service === 'http' ? post(c) : clients[c.service].send(new commands[c.service + '.' + c.command](c.input)).catch(() => 0);
export const handler = async (steps) => {
  for (const step of steps) await Promise.all(step.map(call));
  return { statusCode: 200 };
};`;
}

async function main() {
  bench.exitAfter(20 * 60_000);
  const read = createRequire(import.meta.url)('serverless/lib/configuration/read');
  const yml = await read(join(bench.PROJECT_DIR, 'serverless.yml'));
  if (yml.custom?.esbuild?.config !== './esbuild.config.cjs')
    throw new Error('serverless.yml bundles otherwise');
  /** @type {Record<string, string>} each function's handler source */
  const sources = {};
  for (const [name, fn] of Object.entries(yml.functions)) sources[name] = fn.handler.replace(/\.\w+$/, '.ts');
  const bundles = Object.fromEntries(
    await Promise.all(
      Object.entries(sources).map(async ([name, file]) => [name, await bundle(name, { file })]),
    ),
  );
  print('bundles as serverless package builds them (esbuild.config.cjs), KiB');
  print(
    `function                   bundle  own code and middy (budget ≤ ${OWN_CODE_BUDGET_KIB})  AWS SDK  other packages`,
  );
  for (const [name, b] of Object.entries(bundles)) {
    const split = bySource(b.inputs);
    const check = verdict(
      'bundle',
      `${name}: own code and middy ${kib(split.own)} KiB`,
      split.own / 1024,
      OWN_CODE_BUDGET_KIB,
    );
    print(
      `${name.padEnd(26)} ${kib(b.bytes).padStart(6)}  ${kib(split.own).padStart(6)} ${check.slice(-4)}                   ${kib(split.sdk).padStart(7)}  ${kib(split.other).padStart(6)}`,
    );
  }
  if (process.env.BENCH_SIZES_ONLY === '1') return;

  const db = await startDynamoDbLocal({ inMemory: true, quiet: true });
  const queue = await startLocalQueue({ log: () => undefined });
  /** @type {{ url: string, body: string, at: number }[]} POSTs to consumers: subscribing's sanity check */
  const posts = [];
  const consumer = http.createServer((req, res) => {
    const chunks = /** @type {Buffer[]} */ ([]);
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      posts.push({ url: `${consumerUrl}${req.url}`, body: Buffer.concat(chunks).toString(), at: now() });
      res.writeHead(204).end();
    });
  });
  const consumerUrl = await bench.listenLocal(consumer);
  const realLog = console.log;
  try {
    await ensureTable({ endpoint: db.endpoint, tableName: bench.TABLE_NAME });
    const env = { PATH: process.env.PATH ?? '', ...bench.handlerEnv(db.endpoint, queue.url) };
    const lib = await bench.loadEntry(db.endpoint, queue.url);
    console.log = () => undefined; // the handlers' embedded metrics
    const context = () => ({ awsRequestId: randomUUID(), getRemainingTimeInMillis: () => 10_000 });

    /** An HTTP API (payload 2.0) event. @param {string} method @param {string} path @param {Record<string, string>} [params] @param {unknown} [body] */
    const request = (method, path, params, body, principal = PRINCIPAL) => {
      const rawPath = `/api/ocloudNotifications/v2${path}`;
      const http = { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' };
      const authorizer = { iam: { userArn: principal } };
      const headers = {
        host: 'notify.example.com',
        'content-type': 'application/json',
        'x-forwarded-proto': 'https',
      };
      const requestContext = { http, authorizer, requestId: randomUUID(), timeEpoch: Date.now() };
      const payload = body === undefined ? undefined : JSON.stringify(body);
      return {
        version: '2.0',
        routeKey: `${method} ${rawPath}`,
        rawPath,
        rawQueryString: '',
        headers,
        pathParameters: params,
        body: payload,
        isBase64Encoded: false,
        requestContext,
      };
    };
    /** Sets data up through a handler in this process. @param {string} fn @param {ReturnType<typeof request>} event */
    const setUp = async (fn, event) => {
      const response = await lib[fn](event, context());
      if (response.statusCode >= 300) throw new Error(`${fn}: ${response.statusCode} ${response.body}`);
      return response.body ? JSON.parse(response.body) : undefined;
    };
    const lockState = (/** @type {string} */ node) => `${node}/sync/ptp-status/lock-state`;
    const newPublisher = async (withState = true) => {
      const node = `/bench-${randomUUID().slice(0, 8)}/site-1/node-1`;
      const record = await setUp(
        'createPublisher',
        request('POST', '/publishers', {}, { ResourceAddress: lockState(node) }),
      );
      const id = record.SubscriptionId;
      const params = { publisherId: id };
      if (withState)
        await setUp(
          'publishEvent',
          request('POST', `/publishers/${id}/events`, params, bench.stateEvent(lockState(node), 'LOCKED')),
        );
      return { id, node, address: lockState(node) };
    };
    const subscribe = (/** @type {string} */ address) => ({
      ResourceAddress: address,
      EndpointUri: `${consumerUrl}/${randomUUID()}`,
    });
    const newSubscription = async (/** @type {string} */ address, principal = PRINCIPAL) =>
      (
        await setUp(
          'createSubscription',
          request('POST', '/subscriptions', {}, subscribe(address), principal),
        )
      ).SubscriptionId;
    const pub = await newPublisher();
    const sub = await newSubscription(pub.node);
    const ofSub = { subscriptionId: sub };
    /** @type {Record<string, () => Promise<[ReturnType<typeof request>, number]>>} each API route's next request, and its status */
    const ROUTES = {
      health: async () => [request('GET', '/health'), 200],
      getSubscription: async () => [request('GET', `/subscriptions/${sub}`, ofSub), 200],
      listSubscriptions: async () => [request('GET', '/subscriptions'), 200],
      listDeliveries: async () => [request('GET', `/subscriptions/${sub}/deliveries`, ofSub), 200],
      getCurrentState: async () => [request('GET', `${pub.address}/CurrentState`), 200],
      getPublisher: async () => [request('GET', `/publishers/${pub.id}`, { publisherId: pub.id }), 200],
      listPublishers: async () => [request('GET', '/publishers'), 200],
      createPublisher: async () => [
        request('POST', '/publishers', {}, { ResourceAddress: lockState(`/bench-${randomUUID()}/n`) }),
        201,
      ],
      deletePublisher: async () => {
        const { id } = await newPublisher(false);
        return [request('DELETE', `/publishers/${id}`, { publisherId: id }), 204];
      },
      publishEvent: async () => {
        const event = bench.stateEvent(pub.address, 'FREERUN');
        return [request('POST', `/publishers/${pub.id}/events`, { publisherId: pub.id }, event), 202];
      },
      createSubscription: async () => [request('POST', '/subscriptions', {}, subscribe(pub.node)), 201],
      deleteSubscription: async () => {
        const id = await newSubscription(pub.node);
        return [request('DELETE', `/subscriptions/${id}`, { subscriptionId: id }), 204];
      },
      deleteAllSubscriptions: async () => {
        const principal = `${PRINCIPAL}-${randomUUID().slice(0, 8)}`;
        await newSubscription(pub.node, principal);
        return [request('DELETE', '/subscriptions', {}, undefined, principal), 204];
      },
    };

    print(
      `\ncold start (spawn → answer), ${ROUNDS} fresh processes a side, medians; ratio: the median of the rounds'`,
    );
    print(
      `function                 as deployed  same calls  ratio (budget ≤ ${SAME_CALLS_BUDGET})  the calls, one step after another`,
    );
    for (const [name, next] of Object.entries(ROUTES)) {
      const fn = bundles[name];
      if (!fn) throw new Error(`${name} is not a function of serverless.yml`);
      // The route's first request in a fresh copy of the product, its clients recorded.
      const product = await import(
        pathToFileURL(
          (
            await bundle(`record-${name}`, {
              source: `export { handler } from './${sources[name]}';
export { documentClient } from './lib/store/dynamo-client';
export { sqsClient } from './lib/queue/sqs-queue';
export { kmsClient } from './lib/secrets/kms-data-key';`,
            })
          ).file,
        ).href
      );
      const [event, status] = await next();
      const recording = recordAwsCalls(product.documentClient(), product.sqsClient(), product.kmsClient());
      posts.length = 0;
      const answer = await product.handler(event, context());
      if (answer.statusCode !== status)
        throw new Error(`${name}: answered ${answer.statusCode}, not ${status}`);
      const calls = [
        ...recording.take().map((c) => ({ ...c, at: c.startedAt, end: c.endedAt })),
        ...posts.map((p) => ({ ...p, service: 'http', command: 'POST', at: p.at, end: p.at })),
      ].sort((a, b) => a.at - b.at);
      /** @type {(typeof calls)[]} steps: calls that started before the first of the step before them ended */
      const plan = [];
      for (const c of calls) {
        const step = plan.at(-1);
        if (step && c.at < Math.min(...step.map((s) => s.end))) step.push(c);
        else plan.push([c]);
      }
      const steps = plan.map((step) =>
        step.map((c) => ({
          service: c.service,
          command: c.command,
          input: 'input' in c ? c.input : undefined,
          url: 'url' in c ? c.url : undefined,
          body: 'body' in c ? c.body : undefined,
        })),
      );
      const clients = Object.values(CLIENTS).filter((c) =>
        Object.keys(fn.inputs).some((p) => p.includes(`/client-${c}/`)),
      );
      const bare = await bundle(`bare-${name}`, { source: bareSource(steps, clients) });
      const took = { fn: /** @type {number[]} */ ([]), same: /** @type {number[]} */ ([]) };
      for (let round = 0; round < ROUNDS; round++) {
        const [request, expected] = await next();
        /** @type {[keyof typeof took, string, unknown, number][]} */
        const sides = [
          ['fn', fn.file, request, expected],
          ['same', bare.file, steps, 200],
        ];
        for (const [side, file, input, status] of round % 2 ? sides.reverse() : sides) {
          const result = await coldStart(file, input, env);
          if (result.status !== status)
            throw new Error(`${name} (${side}): answered ${result.status}, not ${status}`);
          took[side].push(result.ms);
        }
      }
      const ratio = median(took.fn.map((ms, i) => ms / (took.same[i] ?? Number.NaN)));
      const check = verdict(
        'cold start',
        `${name}: ${ratio.toFixed(3)}× the same calls`,
        ratio,
        SAME_CALLS_BUDGET,
      );
      const described = plan.map((step) => step.map((c) => c.command).join(' + ')).join(', ');
      print(
        `${name.padEnd(24)} ${median(took.fn).toFixed(1).padStart(11)}  ${median(took.same).toFixed(1).padStart(10)}  ${ratio.toFixed(3)} ${check.slice(-4)}        ${described || 'none'}`,
      );
    }
  } finally {
    console.log = realLog;
    consumer.closeAllConnections();
    consumer.close();
    await queue.stop();
    await db.stop();
  }
}

bench.runMain(main);
