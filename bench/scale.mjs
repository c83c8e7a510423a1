// @ts-check
/**
 * Fleet-scale benchmark (not a test): seeds DynamoDB Local directly (BatchWriteItem, with the
 * store's own item builders, so in the real layout) with PUBLISHERS publishers and SUBSCRIPTIONS
 * subscriptions of one principal, then times the list and bulk routes through the real handlers:
 * the first and last page of each list, the largest body, a node-filtered publisher list,
 * delete-all's 204 and the background clean-up, and the counters before and after.
 *
 *   npm run bench:scale        (PUBLISHERS, default 100000; SUBSCRIPTIONS, default 200000)
 *
 * Budgets: every response ≤ 1 MB, every page ≤ 200 ms at p99, delete-all's 204 ≤ 1 s, counters
 * exact. Exits non-zero when one fails.
 */
import { createRequire } from 'node:module';
import { ensureTable, startDynamoDbLocal } from '../scripts/dynamodb-local.mjs';
import { startLocalQueue } from '../scripts/local-queue.mjs';
import { loadEntry, pool, print, quantile, sleep, TABLE_NAME, verdict, verdicts } from './common.mjs';

const PUBLISHERS = Number(process.env.PUBLISHERS || 100_000);
const SUBSCRIPTIONS = Number(process.env.SUBSCRIPTIONS || 200_000);
const PAGE = 1000;
const MAX_BODY = 1024 * 1024;
const PAGE_P99_MS = 200;
const DELETE_ALL_MS = 1000;
const CLEANUP_DEADLINE_MS = 30 * 60_000;
/** Lambda's time limit for the clean-up function (serverless.yml), as its context reports it. */
const CLEANUP_TIMEOUT_MS = 60_000;
const PRINCIPAL = 'arn:aws:iam::123456789012:user/fleet-consumer';
/** The address tree: clusters × sites × nodes × resources under each node. */
const RESOURCES = [
  'sync/ptp-status/lock-state',
  'sync/ptp-status/clock-class',
  'sync/sync-status/sync-state',
];
const RESOURCES_PER_NODE = 10;

/** Prints the figure beside its budget and PASS/FAIL. @param {string} figure @param {number} value @param {number} budget */
const check = (figure, value, budget) =>
  print(
    `  ${figure}: ${Number.isInteger(value) ? value : value.toFixed(1)}  ${verdict('scale', figure, value, budget)}`,
  );
/** A figure that must equal `expected` exactly. @param {string} figure @param {number} value @param {number} expected */
const exact = (figure, value, expected) =>
  print(
    `  ${figure}: ${value} (expected ${expected})  ${verdict('scale', figure, Math.abs(value - expected), 0).replace('budget ≤ 0', 'difference 0')}`,
  );

/** The i-th publisher's node, and its address: 10 clusters, 20 sites each, nodes of 10 resources. */
function nodeOf(/** @type {number} */ i) {
  const node = Math.floor(i / RESOURCES_PER_NODE);
  return `/scale-c${node % 10}/site-${Math.floor(node / 10) % 20}/node-${Math.floor(node / 200)}`;
}
function publisherAddress(/** @type {number} */ i) {
  const r = i % RESOURCES_PER_NODE;
  return `${nodeOf(i)}/${RESOURCES[r % RESOURCES.length]}${r < RESOURCES.length ? '' : `-${r}`}`;
}

const db = await startDynamoDbLocal({ inMemory: true, quiet: true });
const queue = await startLocalQueue({ log: () => undefined });
let failed = false;
try {
  await ensureTable({ endpoint: db.endpoint, tableName: TABLE_NAME });
  const lib = await loadEntry('scale-entry.ts', db.endpoint, queue.url);
  const { BatchWriteCommand, QueryCommand, UpdateCommand } = createRequire(import.meta.url)(
    '@aws-sdk/lib-dynamodb',
  );
  const client = lib.documentClient();
  const realLog = console.log;
  console.log = () => undefined; // the handlers' embedded metrics, one line per invocation

  // --- seeding -----------------------------------------------------------------------------
  /** @param {Record<string, unknown>[]} items */
  const writeAll = async (items) => {
    /** @type {Record<string, unknown>[]} */
    let pending = items.map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const result = await client.send(new BatchWriteCommand({ RequestItems: { [TABLE_NAME]: pending } }));
      pending = result.UnprocessedItems?.[TABLE_NAME] ?? [];
      if (pending.length > 0) await sleep(20);
    }
  };
  const seeding = Date.now();
  const createdAt = new Date(Date.now() - 3600_000).toISOString();
  const publisherBatches = Math.ceil(PUBLISHERS / 12); // two items each, 25 per batch
  await pool(publisherBatches, 8, async (b) => {
    const items = [];
    for (let i = b * 12; i < Math.min(PUBLISHERS, (b + 1) * 12); i++) {
      const resourceAddress = publisherAddress(i);
      const publisher = {
        id: lib.publisherIdFor(resourceAddress),
        resourceAddress,
        endpointUri: undefined,
        createdAt,
      };
      items.push(lib.publisherItem(publisher), lib.publisherStateItem(publisher));
    }
    await writeAll(items);
  });
  const subscriptionBatches = Math.ceil(SUBSCRIPTIONS / 25);
  await pool(subscriptionBatches, 8, async (b) => {
    const items = [];
    for (let i = b * 25; i < Math.min(SUBSCRIPTIONS, (b + 1) * 25); i++) {
      const resourceAddress = nodeOf((i * 7) % PUBLISHERS);
      const endpointUri = `https://consumer-${i % 50}.example.com/events/${i}`;
      const id = lib.subscriptionIdFor(PRINCIPAL, resourceAddress, endpointUri);
      items.push(lib.subscriptionItem({ id, resourceAddress, endpointUri, owner: PRINCIPAL, createdAt }, 0));
    }
    await writeAll(items);
  });
  await client.send(new UpdateCommand(lib.ownerCount(TABLE_NAME, PRINCIPAL, 0, SUBSCRIPTIONS).Update));
  for (const [kind, n] of /** @type {const} */ ([
    ['subscriptions', SUBSCRIPTIONS],
    ['publishers', PUBLISHERS],
  ])) {
    const { Update } = lib.countBy(TABLE_NAME, kind, n);
    await client.send(new UpdateCommand(Update));
  }
  const seededSeconds = (Date.now() - seeding) / 1000;
  const itemsPerSecond = (PUBLISHERS * 2 + SUBSCRIPTIONS) / seededSeconds;
  print(`# Fleet-scale benchmark: ${PUBLISHERS} publishers, ${SUBSCRIPTIONS} subscriptions of one principal`);
  print(
    `seeded ${PUBLISHERS * 2 + SUBSCRIPTIONS} items in ${seededSeconds.toFixed(0)} s (${itemsPerSecond.toFixed(0)} items/s; ` +
      `1,000,000 subscriptions would take about ${((PUBLISHERS * 2 + 1_000_000) / itemsPerSecond / 60).toFixed(0)} min)`,
  );

  // --- the lists ---------------------------------------------------------------------------
  /** @param {unknown} handler @param {string} path @returns {Promise<{ status: number, bytes: number, ms: number, next: string | undefined, count: number }>} */
  const get = async (handler, path) => {
    const started = performance.now();
    const response = await /** @type {any} */ (handler)(
      lib.httpApiEvent({ method: 'GET', path, authorizer: { iam: { userArn: PRINCIPAL } } }),
      lib.lambdaContext(),
    );
    const ms = performance.now() - started;
    const body = String(response.body ?? '');
    const link = response.headers?.Link;
    const next = link ? /<[^?]+(\?[^>]+)>/.exec(link)?.[1] : undefined;
    const count = response.statusCode === 200 ? JSON.parse(body).length : 0;
    return { status: response.statusCode, bytes: Buffer.byteLength(body), ms, next, count };
  };
  let largest = 0;
  const pageTimes = /** @type {number[]} */ ([]);
  /**
   * The bare calls of one page, in lock step with the handler's pages: the same index query
   * (`Limit` one more than the page, as the store reads it) resumed where the last one stopped, so
   * each page is timed beside what DynamoDB Local alone takes to answer it.
   * @param {string} listPk
   */
  const bareQuery = (listPk) => {
    /** @type {Record<string, unknown> | undefined} */
    let startKey;
    return async () => {
      const started = performance.now();
      const answer = await client.send(
        new QueryCommand({
          TableName: TABLE_NAME,
          IndexName: 'byList',
          KeyConditionExpression: 'listPk = :pk',
          ExpressionAttributeValues: { ':pk': listPk },
          Limit: PAGE + 1,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      const ms = performance.now() - started;
      const lastItem = answer.Items?.[PAGE - 1];
      startKey = lastItem && {
        pk: lastItem.pk,
        sk: lastItem.sk,
        listPk: lastItem.listPk,
        listSk: lastItem.listSk,
      };
      return ms;
    };
  };
  /** @param {string} name @param {unknown} handler @param {string} path @param {number} expected @param {() => Promise<number>} bare */
  const walk = async (name, handler, path, expected, bare) => {
    const started = Date.now();
    const times = [];
    const bareTimes = [];
    let count = 0;
    let query = `?limit=${PAGE}`;
    let last;
    for (;;) {
      const page = await get(handler, `${path}${query}`);
      if (page.status !== 200) throw new Error(`${name}: ${page.status}`);
      bareTimes.push(await bare());
      times.push(page.ms);
      largest = Math.max(largest, page.bytes);
      count += page.count;
      last = page;
      if (!page.next) break;
      query = page.next;
    }
    pageTimes.push(...times);
    print(
      `${name}: ${times.length} pages of ${PAGE} in ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
        `first ${times[0]?.toFixed(1)} ms, last ${last?.ms.toFixed(1)} ms, p99 ${quantile(times, 0.99).toFixed(1)} ms, ${count} records`,
    );
    print(
      `  bare Query of the same pages (the limit measured in this run): first ${bareTimes[0]?.toFixed(1)} ms, ` +
        `last ${bareTimes.at(-1)?.toFixed(1)} ms, p50 ${quantile(bareTimes, 0.5).toFixed(1)} ms, p99 ${quantile(bareTimes, 0.99).toFixed(1)} ms; ` +
        `handler p50 ${quantile(times, 0.5).toFixed(1)} ms, ratio p50 ${(quantile(times, 0.5) / quantile(bareTimes, 0.5)).toFixed(2)}`,
    );
    exact(`${name}: records over all pages`, count, expected);
    check(`${name}: page p99 (ms)`, quantile(times, 0.99), PAGE_P99_MS);
  };
  const plain = await get(lib.listSubscriptionsHandler, '/subscriptions');
  print(
    `GET /subscriptions without limit: ${plain.count} records, ${plain.bytes} bytes, ${plain.ms.toFixed(1)} ms, Link ${plain.next ? 'present' : 'absent'}`,
  );
  largest = Math.max(largest, plain.bytes);
  await walk(
    'GET /publishers',
    lib.listPublishersHandler,
    '/publishers',
    PUBLISHERS,
    bareQuery(lib.keys.publishers),
  );
  await walk(
    'GET /subscriptions',
    lib.listSubscriptionsHandler,
    '/subscriptions',
    SUBSCRIPTIONS,
    bareQuery(lib.keys.subscriptionsOf(PRINCIPAL, 0)),
  );

  const nodeTimes = [];
  for (let n = 0; n < 100; n++) {
    const node = nodeOf(Math.floor(Math.random() * PUBLISHERS));
    const page = await get(
      lib.listPublishersHandler,
      `/publishers?ResourceAddress=${encodeURIComponent(node)}`,
    );
    if (page.status !== 200 || page.count !== RESOURCES_PER_NODE)
      throw new Error(`node list ${node}: ${page.status} ${page.count}`);
    nodeTimes.push(page.ms);
  }
  pageTimes.push(...nodeTimes);
  print(
    `GET /publishers?ResourceAddress=<node>: ${RESOURCES_PER_NODE} records, p50 ${quantile(nodeTimes, 0.5).toFixed(1)} ms, p99 ${quantile(nodeTimes, 0.99).toFixed(1)} ms (100 nodes)`,
  );
  check('node-filtered publisher list p99 (ms)', quantile(nodeTimes, 0.99), PAGE_P99_MS);
  check('largest response body (bytes)', largest, MAX_BODY);

  // --- delete-all and its clean-up ---------------------------------------------------------
  const before = await lib.storeStatus().counts();
  print(`counters before: ${before.subscriptions} subscriptions, ${before.publishers} publishers`);
  exact('subscription counter before delete-all', before.subscriptions, SUBSCRIPTIONS);
  const deleting = performance.now();
  const deleted = await lib.deleteAllSubscriptionsHandler(
    lib.httpApiEvent({
      method: 'DELETE',
      path: '/subscriptions',
      authorizer: { iam: { userArn: PRINCIPAL } },
    }),
    lib.lambdaContext(),
  );
  const deleteMs = performance.now() - deleting;
  if (deleted.statusCode !== 204) throw new Error(`delete-all: ${deleted.statusCode} ${deleted.body}`);
  const after = await lib.storeStatus().counts();
  const listedAfter = await get(lib.listSubscriptionsHandler, '/subscriptions');
  print(
    `DELETE /subscriptions: 204 in ${deleteMs.toFixed(1)} ms; counters then ${after.subscriptions} subscriptions, ${after.publishers} publishers; the list then ${listedAfter.count} records`,
  );
  check("delete-all's 204 (ms)", deleteMs, DELETE_ALL_MS);
  exact('subscription counter right after the 204', after.subscriptions, 0);
  exact('records listed right after the 204', listedAfter.count, 0);

  const cleaning = Date.now();
  queue.startPolling(async (functionKey, event) => {
    if (functionKey !== 'removeRetiredSubscriptions') throw new Error(`unexpected ${functionKey}`);
    const deadline = Date.now() + CLEANUP_TIMEOUT_MS;
    return lib.removeRetiredHandler(event, {
      ...lib.lambdaContext(),
      getRemainingTimeInMillis: () => deadline - Date.now(),
    });
  });
  while (!queue.idle()) {
    if (Date.now() - cleaning > CLEANUP_DEADLINE_MS) throw new Error('the clean-up did not finish');
    await sleep(1000);
  }
  const cleanupSeconds = (Date.now() - cleaning) / 1000;
  let remaining = 0;
  /** @type {Record<string, unknown> | undefined} */
  let startKey;
  do {
    /** @type {import('@aws-sdk/lib-dynamodb').QueryCommandOutput} */
    const page = await client.send(
      new QueryCommand({
        TableName: TABLE_NAME,
        IndexName: 'byList',
        KeyConditionExpression: 'listPk = :pk',
        ExpressionAttributeValues: { ':pk': lib.keys.subscriptionsOf(PRINCIPAL, 0) },
        Select: 'COUNT',
        ExclusiveStartKey: startKey,
      }),
    );
    remaining += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  const final = await lib.storeStatus().counts();
  const deadLetters = queue.deadLetters().length;
  print(
    `background clean-up: ${SUBSCRIPTIONS} items removed in ${cleanupSeconds.toFixed(0)} s ` +
      `(${(SUBSCRIPTIONS / cleanupSeconds).toFixed(0)} items/s); ${remaining} left; counters after: ` +
      `${final.subscriptions} subscriptions, ${final.publishers} publishers; ${deadLetters} dead letters`,
  );
  exact('retired items left after the clean-up', remaining, 0);
  exact('subscription counter after the clean-up', final.subscriptions, 0);
  exact('publisher counter after the clean-up', final.publishers, PUBLISHERS);
  console.log = realLog;
  print(
    `all pages: p99 ${quantile(pageTimes, 0.99).toFixed(1)} ms over ${pageTimes.length}; largest body ${largest} bytes`,
  );
} catch (error) {
  print(`benchmark failed: ${error instanceof Error ? error.stack : String(error)}`);
  failed = true;
} finally {
  await queue.stop();
  await db.stop();
}

print('\n## Summary');
for (const v of verdicts) if (!v.pass) print(`FAIL  ${v.figure}`);
const failures = verdicts.filter((v) => v.pass === false).length;
print(`${verdicts.length - failures} PASS, ${failures} FAIL`);
process.exit(failed || failures > 0 ? 1 : 0);
