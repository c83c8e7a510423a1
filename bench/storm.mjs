// @ts-check
/**
 * `npm run bench:storm` (STORM_VERBOSE=1 shows offline's output): a site-wide loss of GNSS against
 * `npm start`'s own parts. NODES (200) nodes of one site, four publishers each, one subscriber per
 * node and one for the site; every publisher publishes at once. Budgets: all delivered, in order,
 * no repeats; the p99 from 202 to the consumer's 2xx against the floor measured in the same run
 * (offline's and the store's work for the same storm). The wall time is a figure beside the floor.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { BatchWriteItemCommand, paginateScan } from '@aws-sdk/client-dynamodb';
import { dynamoClient, ensureTable, startDynamoDbLocal } from '../scripts/dynamodb-local';
import { startOffline } from '../scripts/offline';
import { TABLE_NAME } from '../scripts/start-local';
import * as bench from './common.mjs';

const { pool, print, quantile, verdict } = bench;
const NODES = Number(process.env.NODES || 200);
const P99_BUDGET = 1.5;
const CONCURRENCY = 64; // requests in flight at once, as the delivery sender's 64 sockets per host
/** The four publishers of a node: path, event type, the value sent when GNSS is lost and when it is back. */
const KINDS = /** @type {const} */ ([
  ['ptp-status/lock-state', 'ptp-status.ptp-state-change', 'HOLDOVER', 'LOCKED'],
  ['ptp-status/clock-class', 'ptp-status.ptp-clock-class-change', 7, 6],
  ['sync-status/sync-state', 'sync-status.synchronization-state-change', 'FREERUN', 'LOCKED'],
  ['gnss-status/gnss-sync-status', 'gnss-status.gnss-state-change', 'FAILURE-NOFIX', 'SYNCHRONIZED'],
]).map(([path, type, lost, back]) => ({ path: `sync/${path}`, type: `event.sync.${type}`, lost, back }));

/** @param {string} url @param {unknown} [body] a POST's; none: a GET @param {number} [expected] else it throws */
async function send(url, body, expected) {
  const init = { method: body === undefined ? 'GET' : 'POST', body: JSON.stringify(body) };
  const response = await fetch(url, { ...init, headers: { 'content-type': 'application/json' } });
  const text = await response.text();
  if (expected && response.status !== expected) throw new Error(`${url}: ${response.status} ${text}`);
  return { status: response.status, text };
}

/** Runs `task` on each item, CONCURRENCY at once, and starts none after a failure. @template T @param {T[]} items @param {(item: T) => Promise<unknown>} task */
async function each(items, task) {
  /** @type {unknown[]} */
  const failures = [];
  await pool(items.length, CONCURRENCY, async (i) => {
    if (failures.length === 0) await task(/** @type {T} */ (items[i])).catch((error) => failures.push(error));
  });
  if (failures.length > 0) throw failures[0];
}

/**
 * The floor's recorder: a pass-through to DynamoDB Local that keeps each request as the handlers
 * sent it, so that the floor can send the storm's requests again (`replay`, table renamed).
 * @param {string} target DynamoDB Local
 */
async function recorder(target) {
  const { hostname: host, port } = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  /** @type {{ headers: Record<string, string>, body: string }[]} */
  const log = [];
  const server = http.createServer(async (req, res) => {
    const chunks = /** @type {Buffer[]} */ ([]);
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const kept = ['content-type', 'x-amz-target', 'authorization'].map((h) => [h, String(req.headers[h])]);
    log.push({ headers: Object.fromEntries(kept), body: body.toString('utf8') });
    const { method, url: path, headers } = req;
    const forward = http.request({ host, port, method, path, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', (error) => res.writeHead(502).end(String(error)));
    forward.end(body);
  });
  const url = await bench.listenLocal(server);
  /** @param {typeof log} entries @param {string} table resolves to the ms they took, CONCURRENCY at once */
  const replay = async (entries, table) => {
    const started = Date.now();
    await pool(entries.length, CONCURRENCY, async (i) => {
      const { headers, body } = /** @type {(typeof log)[number]} */ (entries[i]);
      await (
        await fetch(target, { method: 'POST', headers, body: body.replaceAll(TABLE_NAME, table) })
      ).text();
    });
    return Date.now() - started;
  };
  const close = () => [agent.destroy(), server.closeAllConnections(), server.close()];
  return { url, log, replay, close };
}

/** A copy of the table as it is now, made as the product defines it. @param {string} endpoint @param {string} to */
async function copyTable(endpoint, to) {
  await ensureTable({ endpoint, tableName: to });
  const client = dynamoClient(endpoint);
  for await (const { Items = [] } of paginateScan({ client }, { TableName: TABLE_NAME })) {
    await pool(Math.ceil(Items.length / 25), 8, async (i) => {
      const writes = Items.slice(i * 25, i * 25 + 25).map((Item) => ({ PutRequest: { Item } }));
      const answer = await client.send(new BatchWriteItemCommand({ RequestItems: { [to]: writes } }));
      if (answer.UnprocessedItems?.[to]?.length) throw new Error(`copying to ${to}: items left unwritten`);
    });
  }
  client.destroy();
}

async function main() {
  const db = await startDynamoDbLocal({ inMemory: true, quiet: true });
  const store = await recorder(db.endpoint);
  const sink = await bench.startSink();
  await ensureTable({ endpoint: db.endpoint, tableName: TABLE_NAME });
  const quiet = process.env.STORM_VERBOSE !== '1';
  const offline = await startOffline({ dynamoEndpoint: store.url, quiet, env: { LOG_LEVEL: 'error' } });
  try {
    const { url: api, queue } = offline;
    if (!queue) throw new Error('serverless offline started without its local queue');
    // Offline's invocations but the minutely gauges' (publishes, fanOut, deliver), as it reports each.
    let invocations = 0;
    const count = (/** @type {string} */ line) => {
      if (/\(λ: (?!emitGauges)\w+\) RequestId: .* Billed Duration/.test(line)) invocations += 1;
    };
    for (const input of [offline.process.stdout, offline.process.stderr]) {
      if (input) createInterface({ input }).on('line', count);
    }
    const site = `/storm-${randomUUID().slice(0, 6)}/site-1`;
    const nodes = Array.from({ length: NODES }, (_, i) => `${site}/node-${i}`);
    const publishers = nodes.flatMap((node, n) =>
      KINDS.map((kind) => ({ node: n, kind, address: `${node}/${kind.path}`, id: '' })),
    );
    const subscribers = nodes.map((node, n) => ({ address: node, path: `/node/${n}` }));
    subscribers.push({ address: site, path: '/site' });
    await each(publishers, async (p) => {
      const reply = await send(`${api}/publishers`, { ResourceAddress: p.address }, 201);
      p.id = JSON.parse(reply.text).SubscriptionId;
    });
    await each(subscribers, (s) =>
      send(`${api}/subscriptions`, { ResourceAddress: s.address, EndpointUri: `${sink.url}${s.path}` }, 201),
    );

    /** @type {Map<string, { series: string, seq: number }>} each event's publisher and storm */
    const sequences = new Map();
    /**
     * Every publisher publishes one event at once (retrying a 503 after a second, as an agent
     * would); each owes two notifications, its node's subscriber's and the site's.
     * @param {number} seq @param {'lost' | 'back'} state @param {string} time
     */
    const storm = async (seq, state, time) => {
      const eventOf = (/** @type {(typeof publishers)[number]} */ p) =>
        bench.stateEvent(p.address, p.kind[state], p.kind, time);
      const events = publishers.map((p) => ({ p, event: eventOf(p), at: 0 }));
      for (const { p, event } of events) sequences.set(event.id, { series: p.address, seq });
      const repeatsBefore = sink.repeats();
      const started = Date.now();
      let retries = 0;
      await each(events, async (e) => {
        for (let attempt = 1; ; attempt++) {
          const reply = await send(`${api}/publishers/${e.p.id}/events`, e.event);
          if (reply.status === 202) break;
          if (reply.status !== 503 || attempt >= 5) throw new Error(`publish: ${reply.status} ${reply.text}`);
          retries += 1;
          await bench.sleep(1000);
        }
        e.at = Date.now();
      });
      const publishedIn = Date.now() - started;
      const expected = events.flatMap(({ p, event, at }) =>
        [`/node/${p.node}`, '/site'].map((path) => ({ key: `${path}|${event.id}`, at })),
      );
      const all = () => expected.every((x) => sink.first.has(x.key));
      await bench.until(all, 'every notification', 120_000).catch(print);
      const delivered = expected.filter((x) => sink.first.has(x.key));
      const latencies = delivered.map((x) => (sink.first.get(x.key) ?? 0) - x.at);
      const wallMs = Math.max(...delivered.map((x) => sink.first.get(x.key) ?? 0)) - started;
      await bench.until(() => queue.idle(), 'the queues to drain', 120_000);
      const repeats = sink.repeats() - repeatsBefore;
      return { publishedIn, retries, expected, delivered, latencies, wallMs, repeats };
    };

    // Warm-up: the same storm with the states a second earlier, so every worker offline starts is
    // warm, as a Lambda fleet in a steady state is; its requests are then sent three more times to
    // a copy of the table as it found it, for DynamoDB Local's compiler (docs/benchmarks.md).
    await copyTable(db.endpoint, `${TABLE_NAME}-warm-up`);
    store.log.length = 0;
    await storm(0, 'back', new Date(Date.now() - 1000).toISOString());
    const warmUp = [...store.log];
    for (let i = 0; i < 3; i++) await store.replay(warmUp, `${TABLE_NAME}-warm-up`);

    /** One measured storm, after two copies of the table as it found it, for the floor. @param {number} seq @param {'lost' | 'back'} state */
    const measured = async (seq, state) => {
      const copies = [1, 2].map((n) => `${TABLE_NAME}-floor-${seq}-${n}`);
      for (const copy of copies) await copyTable(db.endpoint, copy);
      store.log.length = 0;
      invocations = 0;
      const result = await storm(seq, state, new Date().toISOString());
      return { ...result, copies, requests: [...store.log], invocations };
    };
    // GNSS lost, then back: the faster storm is measured against its floor (a wait on this machine
    // only ever adds time), as each part of the floor is the faster of two.
    const storms = [await measured(1, 'lost'), await measured(2, 'back')];
    const result = storms.reduce((faster, next) => (next.wallMs < faster.wallMs ? next : faster));

    // The floor: offline's part plus the store's, on the same two cores as the storm. Offline's:
    // as many requests as the storm's invocations to its cheapest route, 64 at once, after a burst
    // that warms it (the storm never ran it). The store's: the storm's DynamoDB requests again.
    const health = async () => {
      const started = Date.now();
      await each(Array.from({ length: result.invocations }), () => send(`${api}/health`, undefined, 200));
      return Date.now() - started;
    };
    await health();
    const offlineMs = [];
    const storeMs = [];
    for (const copy of result.copies) {
      offlineMs.push(await health());
      storeMs.push(await store.replay(result.requests, copy));
    }
    const floorMs = Math.min(...offlineMs) + Math.min(...storeMs);

    const { latencies, wallMs } = result;
    const p99 = quantile(latencies, 0.99);
    const undelivered = storms.reduce((n, s) => n + s.expected.length - s.delivered.length, 0);
    const repeats = storms.reduce((n, s) => n + s.repeats, 0);
    const late = sink.outOfOrder(sequences);
    const delivered = storms.map((s) => `${s.delivered.length} of ${s.expected.length}`).join(', then ');
    const [lost, back] = storms.map((s) => s.wallMs.toFixed(0));
    print(`
storm: ${NODES} nodes × ${KINDS.length} publishers, ${subscribers.length} subscriptions; GNSS lost, then back
  events accepted (202)       ${publishers.length} in ${result.publishedIn} ms, ${result.retries} retried after a 503
  notifications delivered     ${delivered}
  latency 202 → consumer 2xx  p50 ${quantile(latencies, 0.5).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms (the faster storm)
  the floor                   ${floorMs} ms = offline's ${offlineMs.join(' or ')} ms + the store's ${storeMs.join(' or ')} ms
                              (${result.invocations} GET /health; the storm's ${result.requests.length} DynamoDB requests)
  wall time                   ${wallMs.toFixed(0)} ms (${lost} lost, ${back} back) = ${(wallMs / floorMs).toFixed(2)}× the floor (a figure)
  undelivered                 ${undelivered}  ${verdict('storm', 'undelivered', undelivered, 0)}
  repeats                     ${repeats}  ${verdict('storm', 'repeats', repeats, 0)}
  delivered out of order      ${late}  ${verdict('storm', 'out of order', late, 0)}
  p99 / floor                 ${(p99 / floorMs).toFixed(2)}×  ${verdict('storm', 'p99 / floor', p99 / floorMs, P99_BUDGET)}`);
  } finally {
    await offline.stop();
    await sink.close();
    store.close();
    await db.stop();
  }
}

bench.runMain(main, 20 * 60_000);
