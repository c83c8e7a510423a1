// @ts-check
/**
 * Fan-out benchmark (not a test): one event to 10,000 subscriptions, delivered through the real
 * fan-out and deliver handlers and the local queue to a sink on 127.0.0.1, against DynamoDB Local;
 * timed beside its floor, the same store calls made straight from the store adapter, and what the
 * notifications cost in AWS. Then the p50/p99 delivery latency of a fast consumer while another
 * consumer of the same address hangs, beside the same figures with no hanging consumer. Only
 * 127.0.0.1 traffic; bounded in time.
 *
 *   npm run bench:fanout        (SUBSCRIBERS, default 10000; ROUNDS of EVENTS for the latency runs, default 10 of 40)
 *
 * The handlers run in this process (the local queue's poller calls them directly), as under
 * serverless offline but without its worker threads, so the figures are the delivery code's own.
 */
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ensureTable, startDynamoDbLocal } from '../scripts/dynamodb-local.mjs';
import { DEFAULT_CONSUMERS, startLocalQueue } from '../scripts/local-queue.mjs';
import { countingProxy, printNotificationCost, sqsRequests } from './capacity.mjs';
import {
  exitAfter,
  functionMemoryMb,
  informational,
  loadEntry,
  lockStateEvent,
  median,
  pool,
  print,
  quantile,
  runMain,
  sleep,
  startSink,
  TABLE_NAME,
  until,
  verdict,
} from './common.mjs';

const SUBSCRIBERS = Number(process.env.SUBSCRIBERS || 10_000);
const EVENTS = Number(process.env.EVENTS || 40);
/** Latency rounds of each kind, alone and beside a hanging consumer by turns. */
const ROUNDS = Number(process.env.ROUNDS || 10);
const OWNER = 'anonymous';
const SINK_CONCURRENCY = 64; // the sender's agent keeps at most 64 sockets per host
/** The local queue's consumers, the deliver function's with 2 invocations at once (20 packs, up to 500 notifications). */
const CONSUMERS = DEFAULT_CONSUMERS.map((c) => (c.queue === 'delivery' ? { ...c, concurrency: 2 } : c));
const DELIVER = /** @type {(typeof CONSUMERS)[number]} */ (CONSUMERS.find((c) => c.queue === 'delivery'));
const DEADLINE_MS = 20 * 60_000;
const LOCK_STATES = /** @type {const} */ (['HOLDOVER', 'FREERUN', 'LOCKED']);
/**
 * A notification's AWS work (default SUBSCRIBERS) in the runs of docs/benchmarks.md plus 10 %, so
 * that one more request, unit or invocation per notification fails.
 */
const COST_BUDGET = {
  dynamoRequests: 1.25,
  readUnits: 1.2,
  writeUnits: 2.2,
  sqsRequests: 0.33,
  invocations: 0.11,
};

/**
 * The store's floor: the DynamoDB calls the delivery path makes for one event to every
 * subscription of `address`, made straight from the store adapter without the queue, the handlers
 * or any POST: the fan-out's pages, then each attempt as the deliver function makes it (its
 * subscription's read beside its lease, then its completion), through the deliverer's own shared
 * batch calls, as many attempts at once as the deliver consumer runs. Fresh cursor keys (another
 * address under the same subscriptions), so each lease is a pair's first, as in the measured run.
 * @param {Awaited<ReturnType<typeof loadEntry>>} lib @param {string} address @param {ReturnType<typeof lockStateEvent>} event
 */
async function storeFloor(lib, address, event) {
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
  const resourceAddress = `${address}/floor-${randomUUID().slice(0, 6)}`;
  const acceptedAt = new Date().toISOString();
  // The deliver function's own settings, as it reads them from its environment.
  const settings = {
    timeoutMs: lib.config().deliveryTimeoutMs,
    retryWindowMs: lib.deliveryConfig().retryWindowSeconds * 1000,
  };
  const shared = lib.sharedStoreCalls(store);
  let failed = 0; // an attempt whose store call failed (the path retries it later, at a cost of its own)
  await pool(ids.length, DELIVER.concurrency * DELIVER.batchSize, async (i) => {
    const subscriptionId = /** @type {string} */ (ids[i]);
    const attempt = lib.cursorAttempt({ subscriptionId, resourceAddress, event }, Date.now(), settings);
    await Promise.all([shared.subscriptions.run(subscriptionId), shared.leases.run(attempt)])
      .then(() => shared.completions.run(lib.completedAttempt(attempt, { event, acceptedAt }, Date.now())))
      .catch(() => failed++);
  });
  return { ms: Date.now() - started, failed };
}

async function main() {
  exitAfter(DEADLINE_MS);

  const db = await startDynamoDbLocal({ inMemory: true, quiet: true });
  // Every DynamoDB call, the floor's too, goes through the counting proxy: it prices them.
  const counter = await countingProxy(db.endpoint);
  const sink = await startSink();
  const queue = await startLocalQueue({ consumers: CONSUMERS, log: (text) => print(text) });
  const realLog = console.log;
  try {
    await ensureTable({ endpoint: db.endpoint, tableName: TABLE_NAME });
    const lib = await loadEntry('entry.ts', counter.url, queue.url);
    console.log = () => undefined; // the handlers' embedded metrics, one line per invocation

    const context = () => ({ awsRequestId: randomUUID(), getRemainingTimeInMillis: () => 30_000 });
    /** @type {{ fn: string, ms: number }[]} each invocation and its duration, for the AWS cost */
    const invocations = [];
    queue.startPolling(async (key, event) => {
      const started = performance.now();
      try {
        return await (key === 'fanOut' ? lib.fanOutHandler : lib.deliverHandler)(event, context());
      } finally {
        invocations.push({ fn: key, ms: performance.now() - started });
      }
    });

    /** A publisher's address with a subscription for each of `paths` at the sink. @param {string[]} paths */
    const addressWith = async (paths) => {
      const node = `/bench-${randomUUID().slice(0, 6)}/site-1/node-1`;
      const address = `${node}/sync/ptp-status/lock-state`;
      const { publisher } = await lib.publishers().register({ ResourceAddress: address });
      const ids = paths.map(() => randomUUID());
      // Few at once: DynamoDB Local writes one at a time, and the store gives a request 3 s.
      await pool(paths.length, 8, (i) =>
        lib.subscriptionStore().createSubscription({
          id: /** @type {string} */ (ids[i]),
          resourceAddress: address,
          endpointUri: `${sink.url}${paths[i]}`,
          owner: OWNER,
          createdAt: new Date().toISOString(),
        }),
      );
      return { node, address, publisherId: publisher.id, ids };
    };
    const paths = (/** @type {string} */ kind, /** @type {number} */ n) =>
      Array.from({ length: n }, (_, i) => `/${kind}/${i}`);

    // --- 10,000 subscribers of one address -------------------------------------------------
    const seeding = Date.now();
    const { node, address, publisherId } = await addressWith(paths('bulk', SUBSCRIBERS));
    print(`seeded ${SUBSCRIBERS} subscriptions in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);
    // A warm-up event first runs the whole path (handlers, queue, the store's calls, the consumer)
    // for 2 rounds of deliver invocations, so the measured path is as warm as the floor after it.
    const warmUp = DELIVER.concurrency * DELIVER.batchSize * 2;
    const warm = await addressWith(paths('warm', warmUp));
    await lib.publish().publish(warm.publisherId, lockStateEvent(warm.node, new Date().toISOString()));
    await until(() => sink.distinct('warm') >= warmUp && queue.idle(), 'the warm-up');

    const event = lockStateEvent(node, new Date().toISOString(), 'HOLDOVER');
    const queuedBefore = queue.stats();
    counter.log.length = 0;
    invocations.length = 0;
    // The longest the process went without serving its sockets: a handler's time-out timer due
    // then fires before its answer is read (docs/delivery.md, "Repeats").
    const stalls = monitorEventLoopDelay({ resolution: 10 });
    stalls.enable();
    const started = Date.now();
    const result = await lib.publish().publish(publisherId, event);
    const publishMs = Date.now() - started;
    invocations.push({ fn: 'publishEvent', ms: publishMs });
    if (result.kind !== 'accepted') throw new Error(`publish was ${result.kind}`);
    await until(() => sink.distinct('bulk') >= SUBSCRIBERS, 'every delivery');
    const fanOutMs = Date.now() - started;
    await until(() => queue.idle(), 'the queues to drain');
    stalls.disable();
    const queued = queue.stats();
    const enqueued = {
      sent: queued.delivery.sent - queuedBefore.delivery.sent,
      received: queued.delivery.received - queuedBefore.delivery.received,
    };
    const run = {
      notifications: SUBSCRIBERS,
      dynamo: [...counter.log],
      sqsRequests: sqsRequests(queued) - sqsRequests(queuedBefore),
      invocations,
      memoryMb: await functionMemoryMb(),
      apiRequests: 1,
    };

    const body = JSON.stringify(event);
    const policy = lib.createNetworkPolicy({ mode: 'allow-private' });
    const plainStarted = Date.now();
    await pool(SUBSCRIBERS, SINK_CONCURRENCY, (i) =>
      lib.postJson(`${sink.url}/plain/${i}`, body, { timeoutMs: 2000, policy, userAgent: 'bench/1' }),
    );
    const plainMs = Date.now() - plainStarted;

    print('');
    print(`fan-out to ${SUBSCRIBERS} subscriptions (publish → last 2xx at the sink)`);
    print(`  publish answered in          ${publishMs} ms (one fan-out message enqueued)`);
    print(
      `  delivered                    ${sink.distinct('bulk')} of ${SUBSCRIBERS} (+${sink.repeats()} repeats: at-least-once)`,
    );
    // A repeat comes either from a delivery message enqueued twice or from one received twice.
    print(
      `  delivery messages            ${enqueued.sent} enqueued, ${enqueued.received} received (for ${SUBSCRIBERS} notifications)`,
    );
    print(
      `  wall time                    ${(fanOutMs / 1000).toFixed(2)} s (${Math.round((SUBSCRIBERS * 1000) / fanOutMs)}/s); longest event-loop stall ${Math.round(stalls.max / 1e6)} ms (an attempt's time-out: 2000 ms)`,
    );
    // The store's floor: whatever the path does, it cannot be faster than its own store calls.
    counter.log.length = 0;
    const { ms: floorMs, failed } = await storeFloor(lib, address, event);
    print(
      `  the store's calls alone      ${(floorMs / 1000).toFixed(2)} s, ${counter.log.length} DynamoDB requests, ${failed} attempts failed (the path: ${run.dynamo.length}, ${enqueued.received - SUBSCRIBERS}; the floor: the same calls straight from the store adapter, no queue, handler or POST)`,
    );
    print(
      `  whole path / store floor     ${(fanOutMs / floorMs).toFixed(2)}×  ${verdict('fanout', 'path / store floor', fanOutMs / floorMs, 1.3)}`,
    );
    print(
      `  the wire: a plain POST loop  ${(plainMs / 1000).toFixed(2)} s, ${SINK_CONCURRENCY} at once (${Math.round((SUBSCRIBERS * 1000) / plainMs)}/s; the path is ${(fanOutMs / plainMs).toFixed(1)}× it)  ${informational('fanout', 'plain loop')}`,
    );
    printNotificationCost('fanout', print, run, COST_BUDGET);

    // --- a fast consumer, beside a hanging one or alone ------------------------------------
    /**
     * EVENTS events 50 ms apart to a fast consumer, alone or beside one that never answers; then
     * both subscriptions are deleted, which drops their pending deliveries, and the queues drain,
     * so no round runs beside an earlier round's hanging consumer.
     * @param {boolean} withHanging
     */
    const latencyRun = async (withHanging) => {
      const fast = `/fast/${randomUUID()}`;
      const {
        node,
        publisherId: id,
        ids,
      } = await addressWith(withHanging ? [fast, `/hang/${randomUUID()}`] : [fast]);
      /** @type {Array<{ id: string, acceptedAt: number }>} */
      const sent = [];
      for (let i = 0; i < EVENTS; i++) {
        const e = lockStateEvent(node, new Date().toISOString(), LOCK_STATES[i % 3]);
        const acceptedAt = Date.now();
        await lib.publish().publish(id, e);
        sent.push({ id: e.id, acceptedAt });
        await sleep(50);
      }
      const arrival = (/** @type {{ id: string }} */ s) => sink.first.get(`${fast}|${s.id}`);
      await until(() => sent.every(arrival), 'the fast consumer', 60_000).catch(() => undefined);
      for (const subscription of ids) await lib.subscriptionStore().deleteSubscription(subscription, OWNER);
      await until(() => queue.idle(), 'the queues to drain after a latency round', 60_000);
      return sent.filter(arrival).map((s) => (arrival(s) ?? 0) - s.acceptedAt);
    };
    // One round beside a hanging consumer first, not counted: the bulk run above never ran the
    // paths of a time-out or of an attempt that waits for a lease, and their first run is cold.
    await latencyRun(true);
    // By turns, so that whatever the machine does meanwhile falls on both alike; each p99 is over
    // all the rounds' events, not the slowest of one round's 40.
    /** @type {{ alone: number[][], besideHanging: number[][] }} */
    const rounds = { alone: [], besideHanging: [] };
    for (let round = 0; round < ROUNDS; round++) {
      rounds.alone.push(await latencyRun(false));
      rounds.besideHanging.push(await latencyRun(true));
    }
    const summary = (/** @type {number[][]} */ runs) => {
      const all = runs.flat();
      const p99 = quantile(all, 0.99);
      const perRound = runs.map((r) => quantile(r, 0.99)).join(', ');
      return {
        p99,
        text: `p50 ${median(all)} ms, p99 ${p99} ms (${all.length}/${EVENTS * ROUNDS} delivered; each round's slowest ${perRound} ms)`,
      };
    };
    const alone = summary(rounds.alone);
    const besideHanging = summary(rounds.besideHanging);
    print('');
    print(
      `fast consumer latency, ${ROUNDS} rounds of ${EVENTS} events 50 ms apart, alone and beside a hanging consumer by turns (accepted → 2xx at the consumer)`,
    );
    print(`  alone                        ${alone.text}`);
    print(`  beside a hanging consumer    ${besideHanging.text}`);
    // An event overtaken by the next one is superseded, not late: p99 is over those delivered.
    const isolation = besideHanging.p99 / alone.p99;
    print(
      `  p99 beside hanging / alone   ${isolation.toFixed(2)}×  ${verdict('fanout', 'isolation', isolation, 1.2)}`,
    );
  } finally {
    await queue.stop();
    console.log = realLog;
    await sink.close();
    await counter.close();
    await db.stop();
  }
}

runMain(main);
