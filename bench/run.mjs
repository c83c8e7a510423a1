// @ts-check
/**
 * `npm run bench`: each API route's cold start (a fresh Node process loading the function's
 * bundle and serving one request, against DynamoDB Local and the local queue) beside a bare handler
 * bundled the same way with the same AWS clients making the calls the route's first request made,
 * as recorded from the product's own clients (bench/aws-calls.mjs), and nothing else. ROUNDS
 * (default 31) fresh processes a side, alternating. (The bundles' byte budget is in npm test.)
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { BASE_PATH } from '../lib/http/base-path';
import { ensureTable, startDynamoDbLocal } from '../scripts/dynamodb-local';
import { startLocalQueue } from '../scripts/local-queue';
import { now, recordAwsCalls } from './aws-calls.mjs';
import * as bench from './common.mjs';

// No budget: ≤ 1.10× the same calls failed 4–6 of 13 routes in each quiet run (issue 32, decision 3).
const { median, print } = bench;
const ROUNDS = Number(process.env.ROUNDS || 31);
const PRINCIPAL = 'arn:aws:iam::123456789012:user/bench';
/** The AWS SDK's client packages a function may carry (`@aws-sdk/client-…`), and their clients' names. */
const CLIENTS = /** @type {const} */ ({ dynamodb: 'DynamoDB', sqs: 'SQS', kms: 'KMS' });

/** A child that loads a bundle as the Lambda runtime does (import()) and serves one event. */
const CHILD = `const { handler } = await import(process.argv[1]);
const context = { awsRequestId: 'cold', getRemainingTimeInMillis: () => 10000 };
const response = await handler(JSON.parse(process.env.BENCH_EVENT), context);
process.stdout.write('\\n@@' + (response?.statusCode ?? null) + '\\n', () => process.exit(0));`;

/** One cold start: spawn → answer, ms. @param {string} file @param {unknown} event @param {Record<string, string>} env */
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
      if (status) resolve({ ms, status: Number(status) });
      else reject(new Error(`cold start of ${file} failed:\n${out}`));
    });
  });
}

/**
 * A bare handler's source: the function's AWS clients (DynamoDB's document client too), and a
 * handler making the calls of `steps`, a step's at once, one step after another (a refused write
 * counts as made).
 * @param {{ service: string, command: string }[][]} steps @param {(keyof typeof CLIENTS)[]} clients
 */
function bareSource(steps, clients) {
  const commands = [...new Set(steps.flat().map((c) => `${c.service}.${c.command}`))];
  const imports = clients.map((client) => {
    const name = CLIENTS[client];
    const used = commands.filter((c) => c.startsWith(`${name}.`)).map((c) => `${c.split('.')[1]}Command`);
    return `import { ${name}Client, ${used.join(', ')} } from '@aws-sdk/client-${client}';
export const ${name} = ${name === 'DynamoDB' ? 'DynamoDBDocumentClient.from(new DynamoDBClient({}))' : `new ${name}Client({})`};`;
  });
  const table = commands.filter((c) => !c.startsWith('http')).map((c) => `'${c}': ${c.split('.')[1]}Command`);
  return `import http from 'node:http';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
${imports.join('\n')}
const clients = { ${clients.map((c) => CLIENTS[c]).join(', ')} };
const commands = { ${table.join(', ')} };
const headers = { 'content-type': 'application/json' };
const post = (c) => new Promise((end) => http.request(c.url, { method: 'POST', headers }, (r) => r.resume().on('end', end)).end(c.body));
const call = (c) => c.service === 'http' ? post(c) : clients[c.service].send(new commands[c.service + '.' + c.command](c.input)).catch(() => 0);
export const handler = async (steps) => {
  for (const step of steps) await Promise.all(step.map(call));
  return { statusCode: 200 };
};`;
}

async function main() {
  const sources = await bench.serverlessFunctions();
  /** @type {Record<string, Awaited<ReturnType<typeof bench.bundle>>>} */
  const bundles = Object.fromEntries(
    await Promise.all(Object.entries(sources).map(async ([name, file]) => [name, await bench.bundle(file)])),
  );
  const db = await startDynamoDbLocal({ inMemory: true, quiet: true });
  const queue = await startLocalQueue({ log: () => undefined });
  /** @type {{ url: string, body: string, at: number }[]} POSTs to consumers: subscribing's sanity check */
  const posts = [];
  const consumer = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    posts.push({ url: `${consumerUrl}${req.url}`, body, at: now() });
    res.writeHead(204).end();
  });
  const consumerUrl = await bench.listenLocal(consumer);
  const realLog = console.log;
  try {
    await ensureTable({ endpoint: db.endpoint, tableName: bench.TABLE_NAME });
    const env = {
      PATH: process.env.PATH ?? '',
      ...bench.handlerEnv(db.endpoint, queue.url),
      ...bench.ACTIVE_TRACING_ENV,
    };
    const lib = await bench.loadEntry(db.endpoint, queue.url);
    console.log = () => undefined; // the handlers' embedded metrics
    const context = () => ({ awsRequestId: randomUUID(), getRemainingTimeInMillis: () => 10_000 });

    /** An HTTP API (payload 2.0) event. @param {string} method @param {string} path @param {Record<string, string>} [pathParameters] @param {unknown} [body] */
    const request = (method, path, pathParameters, body, principal = PRINCIPAL) => {
      const rawPath = `${BASE_PATH}${path}`;
      const http = { method, path: rawPath, sourceIp: '127.0.0.1' };
      const requestContext = { http, authorizer: { iam: { userArn: principal } }, requestId: randomUUID() };
      const headers = { host: 'notify.example.com', 'content-type': 'application/json' };
      const payload = { body: body === undefined ? undefined : JSON.stringify(body), isBase64Encoded: false };
      return { version: '2.0', rawPath, headers, pathParameters, ...payload, requestContext };
    };
    /** Creates a publisher or subscription through its handler here; its id. @param {string} fn @param {ReturnType<typeof request>} event */
    const create = async (fn, event) => {
      const response = await lib[fn](event, context());
      if (response.statusCode !== 201) throw new Error(`${fn}: ${response.statusCode} ${response.body}`);
      return JSON.parse(response.body).SubscriptionId;
    };
    const lockState = (/** @type {string} */ node) => `${node}/sync/ptp-status/lock-state`;
    const newPublisher = async (withState = true) => {
      const node = `/bench-${randomUUID().slice(0, 8)}/site-1/node-1`;
      const body = { ResourceAddress: lockState(node) };
      const id = await create('createPublisher', request('POST', '/publishers', {}, body));
      if (withState) await lib.publish().publish(id, bench.stateEvent(lockState(node), 'LOCKED'));
      return { id, node, address: lockState(node) };
    };
    const subscribe = (/** @type {string} */ at) => ({
      ResourceAddress: at,
      EndpointUri: `${consumerUrl}/${randomUUID()}`,
    });
    const newSubscription = (/** @type {string} */ address, principal = PRINCIPAL) =>
      create('createSubscription', request('POST', '/subscriptions', {}, subscribe(address), principal));
    const pub = await newPublisher();
    const sub = await newSubscription(pub.node);
    const [ofSub, ofPub] = [{ subscriptionId: sub }, { publisherId: pub.id }];
    /** @type {Record<string, () => Promise<[ReturnType<typeof request>, number]>>} each API route's next request, and its status */
    const ROUTES = {
      health: async () => [request('GET', '/health'), 200],
      getSubscription: async () => [request('GET', `/subscriptions/${sub}`, ofSub), 200],
      listSubscriptions: async () => [request('GET', '/subscriptions'), 200],
      listDeliveries: async () => [request('GET', `/subscriptions/${sub}/deliveries`, ofSub), 200],
      getCurrentState: async () => [request('GET', `${pub.address}/CurrentState`), 200],
      getPublisher: async () => [request('GET', `/publishers/${pub.id}`, ofPub), 200],
      listPublishers: async () => [request('GET', '/publishers'), 200],
      createPublisher: async () => [
        request('POST', '/publishers', {}, { ResourceAddress: `/${randomUUID()}` }),
        201,
      ],
      deletePublisher: async () => {
        const { id } = await newPublisher(false);
        return [request('DELETE', `/publishers/${id}`, { publisherId: id }), 204];
      },
      publishEvent: async () => {
        const event = bench.stateEvent(pub.address, 'FREERUN');
        return [request('POST', `/publishers/${pub.id}/events`, ofPub, event), 202];
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

    print(`\ncold start (spawn → answer), ${ROUNDS} fresh processes a side, medians; the ratio: the median of the rounds'
function                 as deployed  same calls  ratio (a figure)  the calls, step by step`);
    for (const [name, next] of Object.entries(ROUTES)) {
      const fn = bundles[name];
      if (!fn) throw new Error(`${name} is not a function of serverless.yml`);
      // The route's first request in a fresh copy of the product, its own clients recorded.
      const modules = ['lib/store/dynamo-client', 'lib/queue/sqs-queue', 'lib/secrets/kms-data-key'];
      const exports = [sources[name], ...modules].map((m) => `export * from '${bench.PROJECT_DIR}${m}';`);
      const recorded = await bench.bundle(`record-${name}`, exports.join('\n'));
      const product = await import(pathToFileURL(recorded.file).href);
      const [event, status] = await next();
      const recording = recordAwsCalls(product.documentClient(), product.sqsClient(), product.kmsClient());
      posts.length = 0;
      const answer = await product.handler(event, context());
      if (answer.statusCode !== status) throw new Error(`${name}: answered ${answer.statusCode}`);
      const calls = [
        ...recording.take().map((c) => ({ ...c, at: c.startedAt, end: c.endedAt })),
        ...posts.map(({ url, body, at }) => ({ service: 'http', command: 'POST', url, body, at, end: at })),
      ].sort((a, b) => a.at - b.at);
      /** @type {(typeof calls)[]} steps: a call that started before the first of a step ended joins it */
      const steps = [];
      for (const c of calls) {
        const step = steps.at(-1);
        if (step && c.at < Math.min(...step.map((s) => s.end))) step.push(c);
        else steps.push([c]);
      }
      const carried = (/** @type {string} */ c) => fn.inputs.some(([path]) => path.includes(`/client-${c}/`));
      const clients = /** @type {(keyof typeof CLIENTS)[]} */ (Object.keys(CLIENTS)).filter(carried);
      const bare = await bench.bundle(`bare-${name}`, bareSource(steps, clients));
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
          if (result.status !== status) throw new Error(`${name} (${side}): answered ${result.status}`);
          took[side].push(result.ms);
        }
      }
      const ratio = median(took.fn.map((ms, i) => ms / (took.same[i] ?? Number.NaN)));
      const [fnMs, sameMs] = [took.fn, took.same].map((ms) => median(ms).toFixed(1).padStart(10));
      const described = steps.map((step) => step.map((c) => c.command).join(' + ')).join(', ');
      print(`${name.padEnd(24)} ${fnMs}   ${sameMs}  ${ratio.toFixed(3)}              ${described}`);
    }
  } finally {
    console.log = realLog;
    consumer.closeAllConnections();
    consumer.close();
    await queue.stop();
    await db.stop();
  }
}

bench.runMain(main, 20 * 60_000);
