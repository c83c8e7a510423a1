// @ts-check
/**
 * Fan-out benchmark (not a test): one event to 10,000 subscriptions, delivered through the real
 * fan-out and deliver handlers and the local queue to a sink on 127.0.0.1, against DynamoDB Local;
 * compared with a plain concurrent POST loop of the same 10,000 payloads to the same sink. Then the
 * p50/p99 delivery latency of a fast consumer while another consumer of the same address hangs,
 * beside the same figures with no hanging consumer. Only 127.0.0.1 traffic; bounded in time.
 *
 *   npm run bench:fanout        (SUBSCRIBERS, default 10000; EVENTS for the latency runs, default 40)
 *
 * The handlers run in this process (the local queue's poller calls them directly), as under
 * serverless offline but without its worker threads, so the figures are the delivery code's own.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { ensureTable, startDynamoDbLocal } from '../scripts/dynamodb-local.mjs';
import { DEFAULT_CONSUMERS, startLocalQueue } from '../scripts/local-queue.mjs';
import {
  cpuMs,
  exitAfter,
  informational,
  listenLocal,
  loadEntry,
  lockStateEvent,
  median,
  pool,
  quantile,
  TABLE_NAME,
  until,
  verdict,
  verdicts,
} from './common.mjs';

const SUBSCRIBERS = Number(process.env.SUBSCRIBERS || 10_000);
const EVENTS = Number(process.env.EVENTS || 40);
const SINK_CONCURRENCY = 64; // the sender's agent keeps at most 64 sockets per host
const DEADLINE_MS = 10 * 60_000;
const LOCK_STATES = /** @type {const} */ (['HOLDOVER', 'FREERUN', 'LOCKED']);

const print = (/** @type {string} */ text) => process.stdout.write(`${text}\n`);
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A sink that answers 204, or never answers on /hang; it counts arrivals and distinct paths per
 * path prefix (kept as running counts: the harness polls them while the fan-out is timed).
 */
async function startSink() {
  /** @type {Map<string, number>} */
  const arrivals = new Map();
  /** @type {Map<string, number>} event id → arrival at /fast */
  const fast = new Map();
  /** @type {Map<string, Set<string>>} */
  const paths = new Map();
  const server = http.createServer((req, res) => {
    const chunks = /** @type {Buffer[]} */ ([]);
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      const kind = (req.url ?? '').split('/')[1] ?? '';
      if (kind === 'hang') return;
      res.writeHead(204).end();
      arrivals.set(kind, (arrivals.get(kind) ?? 0) + 1);
      const seen = paths.get(kind) ?? new Set();
      seen.add(req.url ?? '');
      paths.set(kind, seen);
      if (kind === 'fast') fast.set(JSON.parse(Buffer.concat(chunks).toString()).id, at);
    });
  });
  server.keepAliveTimeout = 5000;
  const { url } = await listenLocal(server);
  return {
    url: (/** @type {string} */ path) => `${url}${path}`,
    count: (/** @type {string} */ kind) => arrivals.get(kind) ?? 0,
    distinct: (/** @type {string} */ kind) => paths.get(kind)?.size ?? 0,
    fast,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

/**
 * Times the DynamoDB calls the delivery path makes for one event to every subscription of
 * `address`: the fan-out's pages, then per batch of 10 (16 batches at once, as the deliver
 * consumer runs) the subscriptions' read, the ordering leases and their completions. Fresh cursor
 * keys (another address under the same subscriptions), so each lease is a pair's first, as in the
 * measured run. Without `withWrites`, only the reads: what a path that wrote nothing per
 * notification would still cost here.
 * @param {Awaited<ReturnType<typeof loadEntry>>} lib @param {string} address @param {ReturnType<typeof lockStateEvent>} event
 * @param {boolean} [withWrites]
 */
async function storeFloor(lib, address, event, withWrites = true) {
  const store = lib.deliveryStore();
  const started = Date.now();
  /** @type {string[]} */
  const ids = [];
  /** @type {unknown} */
  let startKey;
  do {
    const page = await store.subscriptionsAt(address, startKey ? { startKey } : {});
    for (const subscription of page.subscriptions) ids.push(subscription.id);
    startKey = page.next;
  } while (startKey);
  const cursorAddress = `${address}/floor-${randomUUID().slice(0, 6)}`;
  const acceptedAt = new Date().toISOString();
  // The deliver function's own settings, as it reads them from its environment.
  const settings = {
    timeoutMs: lib.config().deliveryTimeoutMs,
    retryWindowMs: lib.deliveryConfig().retryWindowSeconds * 1000,
  };
  const batches = Math.ceil(ids.length / 10);
  await pool(batches, 16, async (b) => {
    const batch = ids.slice(b * 10, b * 10 + 10);
    const now = Date.now();
    const attempts = batch.map((subscriptionId) =>
      lib.cursorAttempt({ subscriptionId, resourceAddress: cursorAddress, event }, now, settings),
    );
    await store.getSubscriptions(batch);
    if (!withWrites) return;
    await store.acquireDeliveryLeases(attempts);
    await store.completeDeliveries(
      attempts.map((a) => lib.completedAttempt(a, { event, acceptedAt }, Date.now())),
    );
  });
  return Date.now() - started;
}

async function main() {
  exitAfter(DEADLINE_MS);

  const db = await startDynamoDbLocal({ inMemory: true, quiet: true });
  const sink = await startSink();
  const queue = await startLocalQueue({
    consumers: DEFAULT_CONSUMERS.map((c) => ({
      ...c,
      concurrency: c.queue === 'delivery' ? 16 : c.concurrency,
    })),
    log: (text) => print(text),
  });
  const realLog = console.log;
  try {
    await ensureTable({ endpoint: db.endpoint, tableName: TABLE_NAME });
    const lib = await loadEntry('entry.ts', db.endpoint, queue.url);
    console.log = () => undefined; // the handlers' embedded metrics, one line per invocation

    const context = () => ({ awsRequestId: randomUUID(), getRemainingTimeInMillis: () => 30_000 });
    queue.startPolling((key, event) =>
      key === 'fanOut' ? lib.fanOutHandler(event, context()) : lib.deliverHandler(event, context()),
    );

    // --- 10,000 subscribers of one address -------------------------------------------------
    const node = `/bench-${randomUUID().slice(0, 6)}/site-1/node-1`;
    const address = `${node}/sync/ptp-status/lock-state`;
    const publisher = await lib.publishers().register({ ResourceAddress: address });
    const publisherId = publisher.publisher.id;
    const seeding = Date.now();
    await pool(SUBSCRIBERS, 64, (i) =>
      lib.subscriptionStore().createSubscription({
        id: randomUUID(),
        resourceAddress: address,
        endpointUri: sink.url(`/bulk/${i}`),
        owner: 'anonymous',
        createdAt: new Date().toISOString(),
      }),
    );
    print(`seeded ${SUBSCRIBERS} subscriptions in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);

    const event = lockStateEvent(node, new Date().toISOString(), 'HOLDOVER');
    const dbCpuBefore = cpuMs(db.process.pid);
    const ownCpuBefore = process.cpuUsage();
    const started = Date.now();
    const result = await lib.publish().publish(publisherId, event);
    const publishMs = Date.now() - started;
    if (result.kind !== 'accepted') throw new Error(`publish was ${result.kind}`);
    await until(() => sink.distinct('bulk') >= SUBSCRIBERS, 'every delivery');
    const fanOutMs = Date.now() - started;
    await until(() => queue.idle(), 'the queues to drain');
    const enqueued = queue.stats().delivery;
    const dbCpuAfter = cpuMs(db.process.pid);
    const ownCpu = process.cpuUsage(ownCpuBefore);

    const body = JSON.stringify(event);
    const policy = lib.createNetworkPolicy({ mode: 'allow-private' });
    const plainStarted = Date.now();
    await pool(SUBSCRIBERS, SINK_CONCURRENCY, (i) =>
      lib.postJson(sink.url(`/plain/${i}`), body, { timeoutMs: 2000, policy, userAgent: 'bench/1' }),
    );
    const plainMs = Date.now() - plainStarted;

    print('');
    print(`fan-out to ${SUBSCRIBERS} subscriptions (publish → last 2xx at the sink)`);
    print(`  publish answered in          ${publishMs} ms (one fan-out message enqueued)`);
    const repeats = sink.count('bulk') - sink.distinct('bulk');
    print(
      `  delivered                    ${sink.distinct('bulk')} of ${SUBSCRIBERS} (+${repeats} repeats: at-least-once)`,
    );
    // A repeat comes either from a delivery message enqueued twice or from one received twice.
    print(
      `  delivery messages            ${enqueued.sent} enqueued, ${enqueued.received} received (for ${SUBSCRIBERS} notifications)`,
    );
    print(
      `  wall time                    ${(fanOutMs / 1000).toFixed(2)} s (${Math.round((SUBSCRIBERS * 1000) / fanOutMs)}/s)`,
    );
    print(
      `  plain POST loop, ${SINK_CONCURRENCY} at once  ${(plainMs / 1000).toFixed(2)} s (${Math.round((SUBSCRIBERS * 1000) / plainMs)}/s)`,
    );
    print(
      `  ratio queued / plain         ${(fanOutMs / plainMs).toFixed(2)}×  ${verdict('fanout', 'ratio', fanOutMs / plainMs, 3)}`,
    );

    // Where the wall time went: the store's CPU against the handlers' (this process, the local
    // queue included), per notification, beside the wall time available to them.
    const perNotification = (/** @type {number} */ cpu) => `${((cpu * 1000) / SUBSCRIBERS).toFixed(0)} µs`;
    const ownMs = (ownCpu.user + ownCpu.system) / 1000;
    const dbMs = dbCpuBefore === undefined || dbCpuAfter === undefined ? undefined : dbCpuAfter - dbCpuBefore;
    print(
      `  CPU per notification         DynamoDB Local ${dbMs === undefined ? 'n/a' : perNotification(dbMs)}, handlers and queue ${perNotification(ownMs)} (wall ${perNotification(fanOutMs)}, 2 cores: ${perNotification(fanOutMs * 2)} of CPU)`,
    );

    // The store's floor: the same DynamoDB work the delivery path did for these notifications
    // (the fan-out's pages; per batch of 10 the subscriptions' BatchGetItem, the leases and the
    // completions), made straight from the store adapter with the deliver consumers' concurrency,
    // without the queue, the handlers or any POST. Whatever the path does, it cannot be faster
    // than this on this store: when the floor alone is over the budget, the budget cannot be met.
    const floorMs = await storeFloor(lib, address, event);
    print(
      `  the store's calls alone      ${(floorMs / 1000).toFixed(2)} s = ${(floorMs / plainMs).toFixed(2)}× the plain loop (DynamoDB Local's floor under this path)  ${informational('fanout', 'store floor')}`,
    );
    const readsMs = await storeFloor(lib, address, event, false);
    print(
      `  its reads alone              ${(readsMs / 1000).toFixed(2)} s = ${(readsMs / plainMs).toFixed(2)}× (the floor of a path writing nothing per notification)  ${informational('fanout', 'reads floor')}`,
    );

    // --- a fast consumer, beside a hanging one or alone ------------------------------------
    /** @param {boolean} withHanging */
    const latencyRun = async (withHanging) => {
      const node = `/bench-${randomUUID().slice(0, 6)}/site-1/node-1`;
      const lockAddress = `${node}/sync/ptp-status/lock-state`;
      const registered = await lib.publishers().register({ ResourceAddress: lockAddress });
      const id = registered.publisher.id;
      for (const path of withHanging ? ['/fast', '/hang'] : ['/fast']) {
        await lib.subscriptionStore().createSubscription({
          id: randomUUID(),
          resourceAddress: lockAddress,
          endpointUri: sink.url(`${path}/${randomUUID()}`),
          owner: 'anonymous',
          createdAt: new Date().toISOString(),
        });
      }
      /** @type {Array<{ id: string, acceptedAt: number }>} */
      const sent = [];
      for (let i = 0; i < EVENTS; i++) {
        const e = lockStateEvent(node, new Date().toISOString(), LOCK_STATES[i % 3]);
        const acceptedAt = Date.now();
        await lib.publish().publish(id, e);
        sent.push({ id: e.id, acceptedAt });
        await sleep(50);
      }
      await until(() => sent.every((s) => sink.fast.has(s.id)), 'the fast consumer', 60_000).catch(
        () => undefined,
      );
      const latencies = sent
        .filter((s) => sink.fast.has(s.id))
        .map((s) => (sink.fast.get(s.id) ?? 0) - s.acceptedAt);
      return { delivered: latencies.length, p50: median(latencies), p99: quantile(latencies, 0.99) };
    };
    const alone = await latencyRun(false);
    const besideHanging = await latencyRun(true);
    print('');
    print(`fast consumer latency, ${EVENTS} events 50 ms apart (accepted → 2xx at the consumer)`);
    print(
      `  alone                        p50 ${alone.p50} ms, p99 ${alone.p99} ms (${alone.delivered}/${EVENTS} delivered)`,
    );
    print(
      `  beside a hanging consumer    p50 ${besideHanging.p50} ms, p99 ${besideHanging.p99} ms (${besideHanging.delivered}/${EVENTS} delivered)`,
    );
    // An event overtaken by the next one is superseded, not late: p99 is over those delivered.
    const isolation = besideHanging.p99 / alone.p99;
    print(
      `  p99 beside hanging / alone   ${isolation.toFixed(2)}×  ${verdict('fanout', 'isolation', isolation, 1.2)}`,
    );
  } finally {
    await queue.stop();
    console.log = realLog;
    await sink.close();
    await db.stop();
  }
}

main().then(
  () => process.exit(verdicts.some((v) => v.pass === false) ? 1 : 0),
  (error) => {
    print(`benchmark failed: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
