// @ts-check
/**
 * Storm benchmark (not a test): a site-wide loss of GNSS against `npm start`'s own parts —
 * DynamoDB Local, the handlers under serverless offline, the local queue and its poller. 200 nodes
 * under one site, four publishers each (lock-state, clock-class, sync-state, gnss-state), one
 * subscriber per node and one for the whole site; every publisher publishes one event at once.
 * Prints what was delivered, the latency from each event's 202 to its consumer's 2xx, the store
 * and queue work per notification, beside a plain concurrent POST loop of the same notifications
 * in the same run, with budgets; exits non-zero when one fails. Only 127.0.0.1 traffic.
 *
 *   npm run bench:storm        (NODES, default 200; STORM_VERBOSE=1 shows serverless offline's output)
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { ensureTable, startDynamoDbLocal } from '../scripts/dynamodb-local.mjs';
import { startOffline } from '../scripts/offline.mjs';
import { TABLE_NAME } from '../scripts/start-local.mjs';
import { countingProxy } from './capacity.mjs';
import {
  exitAfter,
  informational,
  listenLocal,
  pool,
  quantile,
  until,
  verdict,
  verdicts,
} from './common.mjs';

const NODES = Number(process.env.NODES || 200);
const PART = 'storm';
const DEADLINE_MS = 10 * 60_000;
const CONCURRENCY = 64; // the delivery sender's agent keeps at most 64 sockets per host
// Idle sockets are dropped after 4 s, before serverless offline closes them (its server's 5 s
// keep-alive): a request sent on a socket as the server closes it fails with "socket hang up".
// Without this the storm failed 3 runs in 3 on a quiet machine, where the warm-up drains in about
// 5 s, so the storm's publishes reused sockets idle just that long.
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY, timeout: 4000 });
const print = (/** @type {string} */ text) => process.stdout.write(`${text}\n`);
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The four publishers of a node and the event each sends when GNSS is lost. */
const KINDS = [
  { path: 'sync/ptp-status/lock-state', type: 'event.sync.ptp-status.ptp-state-change', value: 'HOLDOVER' },
  { path: 'sync/ptp-status/clock-class', type: 'event.sync.ptp-status.ptp-clock-class-change', value: 7 },
  {
    path: 'sync/sync-status/sync-state',
    type: 'event.sync.sync-status.synchronization-state-change',
    value: 'FREERUN',
  },
  {
    path: 'sync/gnss-status/gnss-sync-status',
    type: 'event.sync.gnss-status.gnss-state-change',
    value: 'FAILURE-NOFIX',
  },
];

/**
 * @param {string} address the publisher's address
 * @param {{ path: string, type: string, value: string | number }} kind
 * @param {string} time
 */
function eventFor(address, kind, time, value = kind.value) {
  return {
    id: randomUUID(),
    specversion: '1.0',
    source: `/${kind.path}`,
    type: kind.type,
    time,
    data: {
      version: '1.0',
      values: [
        {
          data_type: 'notification',
          ResourceAddress: address,
          value_type: typeof value === 'number' ? 'metric' : 'enumeration',
          value,
        },
      ],
    },
  };
}

/** @param {string} url @param {string} body @returns {Promise<{ status: number, text: string }>} */
function post(url, body) {
  return send('POST', url, body);
}

/**
 * @param {'GET' | 'POST'} method @param {string} url @param {string | undefined} body
 * @returns {Promise<{ status: number, text: string }>}
 */
function send(method, url, body) {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method, agent, headers: body === undefined ? {} : { 'content-type': 'application/json' } },
      (response) => {
        const chunks = /** @type {Buffer[]} */ ([]);
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** Answers 204 to everything; remembers when each (path, event id) first got its 2xx, and repeats. */
async function startSink() {
  /** @type {Map<string, number>} */
  const firstAt = new Map();
  let repeats = 0;
  const server = http.createServer((req, res) => {
    const chunks = /** @type {Buffer[]} */ ([]);
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      res.writeHead(204).end();
      const at = Date.now();
      let id = '';
      try {
        id = JSON.parse(Buffer.concat(chunks).toString()).id;
      } catch {
        return;
      }
      const key = `${req.url}|${id}`;
      if (firstAt.has(key)) repeats += 1;
      else firstAt.set(key, at);
    });
  });
  server.keepAliveTimeout = 10_000;
  const { url } = await listenLocal(server);
  return {
    url,
    firstAt,
    repeats: () => repeats,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

/**
 * Requests, capacity units (read and write together: DynamoDB Local reports PartiQL batches' units
 * undivided) and requests per operation, e.g. "Query 4800, TransactWriteItems 800".
 * @param {{ op: string, read: number, write: number }[]} log
 */
function dynamoTotals(log) {
  /** @type {Map<string, number>} */
  const ops = new Map();
  let capacity = 0;
  for (const entry of log) {
    ops.set(entry.op, (ops.get(entry.op) ?? 0) + 1);
    capacity += entry.read + entry.write;
  }
  const byOperation = [...ops]
    .sort((a, b) => b[1] - a[1])
    .map(([op, count]) => `${op} ${count}`)
    .join(', ');
  return { requests: log.length, capacity, byOperation };
}

async function main() {
  exitAfter(DEADLINE_MS);
  const db = await startDynamoDbLocal({ inMemory: true, quiet: true });
  const counter = await countingProxy(db.endpoint);
  const sink = await startSink();
  /** @type {Awaited<ReturnType<typeof startOffline>> | undefined} */
  let offline;
  try {
    await ensureTable({ endpoint: db.endpoint, tableName: TABLE_NAME });
    offline = await startOffline({
      dynamoEndpoint: counter.url,
      quiet: process.env.STORM_VERBOSE !== '1',
      env: { LOG_LEVEL: 'error' },
    });
    const api = offline.url;
    const queue = offline.queue;
    if (!queue) throw new Error('serverless offline started without its local queue');

    const site = `/storm-${randomUUID().slice(0, 6)}/site-1`;
    const nodes = Array.from({ length: NODES }, (_, i) => `${site}/node-${i}`);
    const publishers = nodes.flatMap((node, n) =>
      KINDS.map((kind) => ({ node: n, kind, address: `${node}/${kind.path}`, id: '' })),
    );
    const setupStarted = Date.now();
    await pool(publishers.length, 16, async (i) => {
      const p = /** @type {(typeof publishers)[number]} */ (publishers[i]);
      const reply = await post(`${api}/publishers`, JSON.stringify({ ResourceAddress: p.address }));
      if (reply.status !== 201) throw new Error(`register ${p.address}: HTTP ${reply.status} ${reply.text}`);
      p.id = JSON.parse(reply.text).SubscriptionId;
    });
    const subscribers = [
      ...nodes.map((node, n) => ({ address: node, path: `/node/${n}` })),
      { address: site, path: '/site' },
    ];
    await pool(subscribers.length, 16, async (i) => {
      const s = /** @type {(typeof subscribers)[number]} */ (subscribers[i]);
      const body = JSON.stringify({ ResourceAddress: s.address, EndpointUri: `${sink.url}${s.path}` });
      const reply = await post(`${api}/subscriptions`, body);
      if (reply.status !== 201) throw new Error(`subscribe ${s.address}: HTTP ${reply.status} ${reply.text}`);
    });
    print(
      `set up ${publishers.length} publishers and ${subscribers.length} subscriptions in ${((Date.now() - setupStarted) / 1000).toFixed(1)} s`,
    );

    /**
     * Every publisher publishes one event at once; resolves to each event's 202 time and the
     * notifications it owes (its node's subscriber and the site's).
     * @param {(p: (typeof publishers)[number], time: string) => ReturnType<typeof eventFor>} make
     */
    const storm = async (make) => {
      const time = new Date().toISOString();
      const events = publishers.map((p) => ({ p, event: make(p, time), acceptedAt: 0 }));
      const started = Date.now();
      let retries = 0;
      await Promise.all(
        events.map(async (e) => {
          // A publisher retries a 503 after its Retry-After, as a PTP agent would; counted below.
          for (let attempt = 1; ; attempt++) {
            const reply = await post(`${api}/publishers/${e.p.id}/events`, JSON.stringify(e.event));
            if (reply.status === 202) break;
            if (reply.status !== 503 || attempt >= 5)
              throw new Error(`publish: HTTP ${reply.status} ${reply.text}`);
            retries += 1;
            await sleep(1000);
          }
          e.acceptedAt = Date.now();
        }),
      );
      const publishedIn = Date.now() - started;
      const expected = events.flatMap((e) => [
        {
          key: `/node/${e.p.node}|${e.event.id}`,
          acceptedAt: e.acceptedAt,
          event: e.event,
          path: `/node/${e.p.node}`,
        },
        { key: `/site|${e.event.id}`, acceptedAt: e.acceptedAt, event: e.event, path: '/site' },
      ]);
      await until(() => expected.every((x) => sink.firstAt.has(x.key)), 'every notification', 120_000).catch(
        (error) => print(String(error)),
      );
      const delivered = expected.filter((x) => sink.firstAt.has(x.key));
      const last = Math.max(...delivered.map((x) => sink.firstAt.get(x.key) ?? 0));
      return { started, publishedIn, retries, expected, delivered, wallMs: last - started };
    };

    // Warm-up: the same storm with LOCKED states a second earlier, so every worker offline starts
    // is warm, as a Lambda fleet in a steady state is. Its own figures are not reported.
    const warmTime = new Date(Date.now() - 1000).toISOString();
    await storm((p) =>
      eventFor(
        p.address,
        p.kind,
        warmTime,
        typeof p.kind.value === 'number' ? 6 : p.kind.path.includes('gnss') ? 'SYNCHRONIZED' : 'LOCKED',
      ),
    );
    await until(() => queue.idle(), 'the queues to drain after the warm-up', 120_000);

    counter.log.length = 0;
    const queueBefore = queue.stats();
    const repeatsBefore = sink.repeats();
    const result = await storm((p, time) => eventFor(p.address, p.kind, time));
    await until(() => queue.idle(), 'the queues to drain', 120_000);
    const dynamo = dynamoTotals(counter.log);
    const queueAfter = queue.stats();
    const repeats = sink.repeats() - repeatsBefore;

    // The plain loop: the same notifications, POSTed straight to the same consumers.
    const plainStarted = Date.now();
    await pool(result.expected.length, CONCURRENCY, async (i) => {
      const x = /** @type {(typeof result.expected)[number]} */ (result.expected[i]);
      await post(`${sink.url}/plain${x.path}`, JSON.stringify(x.event));
    });
    const plainMs = Date.now() - plainStarted;

    // serverless offline's own floor: as many requests as the storm's publishes, all at once, to
    // its cheapest route (GET /health: one GetItem). The storm's publishes cannot be answered
    // faster than this on this machine, whatever the handlers do.
    const floorStarted = Date.now();
    await Promise.all(
      publishers.map(async () => {
        const reply = await send('GET', `${api}/health`, undefined);
        if (reply.status !== 200) throw new Error(`health: HTTP ${reply.status} ${reply.text}`);
      }),
    );
    const offlineFloorMs = Date.now() - floorStarted;

    const latencies = result.delivered.map((x) => (sink.firstAt.get(x.key) ?? 0) - x.acceptedAt);
    const p50 = quantile(latencies, 0.5);
    const p99 = quantile(latencies, 0.99);
    const max = Math.max(...latencies);
    const n = Math.max(1, result.delivered.length);
    let messages = 0;
    let requests = 0;
    for (const name of /** @type {const} */ (['fan-out', 'delivery', 'dead-letter'])) {
      const a = queueAfter[name];
      const b = queueBefore[name];
      messages += a.sent - b.sent;
      requests +=
        a.sendRequests -
        b.sendRequests +
        (a.receiveRequests - b.receiveRequests) +
        (a.deleteRequests - b.deleteRequests) +
        (a.visibilityChanges - b.visibilityChanges);
    }

    print('');
    print(
      `site-wide storm: ${NODES} nodes × ${KINDS.length} publishers, ${subscribers.length} subscriptions`,
    );
    print(
      `  events accepted (202)          ${publishers.length} in ${result.publishedIn} ms (${result.retries} publishes retried after a 503)`,
    );
    print(
      `  notifications                  ${result.delivered.length} of ${result.expected.length} delivered (+${repeats} repeats)`,
    );
    print(`  latency 202 → consumer 2xx    p50 ${p50} ms, p99 ${p99} ms, max ${max} ms`);
    print(`  storm wall time               ${result.wallMs} ms (first publish → last 2xx)`);
    print(
      `  plain POST loop, ${CONCURRENCY} at once   ${plainMs} ms for the same ${result.expected.length} notifications`,
    );
    print(`  ratio storm / plain           ${(result.wallMs / plainMs).toFixed(2)}×`);
    print(
      `  offline's floor               ${offlineFloorMs} ms for ${publishers.length} GET /health at once = ${(offlineFloorMs / plainMs).toFixed(2)}× the plain loop (the publishes alone cannot be answered faster)  ${informational(PART, 'offline floor')}`,
    );
    print(
      `  DynamoDB per notification     ${(dynamo.requests / n).toFixed(2)} requests, ${(dynamo.capacity / n).toFixed(2)} capacity units (${dynamo.byOperation})`,
    );
    print(
      `  SQS-equivalent per notification ${(messages / n).toFixed(2)} messages, ${(requests / n).toFixed(2)} requests`,
    );
    print('');
    const all = result.delivered.length === result.expected.length ? 0 : 1;
    print(
      `  every notification delivered   ${all === 0 ? 'yes' : 'no'}  ${verdict(PART, 'undelivered', all, 0)}`,
    );
    print(`  p99 latency                    ${p99} ms  ${verdict(PART, 'p99 ms', p99, 1000)}`);
    print(
      `  wall time / plain loop         ${(result.wallMs / plainMs).toFixed(2)}×  ${verdict(PART, 'wall ratio', result.wallMs / plainMs, 3)}`,
    );
  } finally {
    await offline?.stop();
    await sink.close();
    await counter.close();
    await db.stop();
    agent.destroy();
  }
}

main().then(
  () => process.exit(verdicts.some((v) => v.pass === false) ? 1 : 0),
  (error) => {
    print(`benchmark failed: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
