// @ts-check
/**
 * Part 3, store calls and capacity, and what a notification costs in AWS (bench:fanout,
 * bench:storm). The real handler bundles talk to DynamoDB Local through a counting proxy on
 * 127.0.0.1 that sets ReturnConsumedCapacity: 'INDEXES' on every request and records the operation
 * and the read and write units AWS bills for it (the answers pass unchanged, so the SDK's CRC32
 * check still holds). The handlers' code is not touched.
 */
import http from 'node:http';
import { BatchWriteItemCommand, paginateScan } from '@aws-sdk/client-dynamodb';
import { dynamoClient, ensureTable } from '../scripts/dynamodb-local.mjs';
import { billedUnits as awsBilledUnits } from './aws-calls.mjs';
import { informational, lambdaContext, listenLocal, loadFresh, pool, verdict } from './common.mjs';
import { PRICES } from './cost-model.mjs';
import { runSample } from './routes.mjs';

/**
 * The units AWS bills for one request (aws-calls.mjs: DynamoDB's report and what DynamoDB Local
 * leaves out of it); a refused condition is answered as an error, its type in the body.
 * @param {string} op @param {any} input @param {any} output
 */
const billedUnits = (op, input, output) =>
  awsBilledUnits(
    op,
    input,
    output,
    String(output?.__type ?? '')
      .split('#')
      .at(-1) || undefined,
  );

/** The conditional writes an answer refuses: a request's, a transaction's, PartiQL statements'. */
const refusedWrites = (/** @type {string} */ answer) =>
  answer.match(/ConditionalCheckFailedException|"Code":"ConditionalCheckFailed"/g)?.length ?? 0;

/** @typedef {{ op: string, read: number, write: number, refused: number, headers: Record<string, string>, body: Buffer }} Counted */

/**
 * Creates table `to` as the product defines it and copies `from`'s items into it, so that requests
 * recorded against `from` from now on can be replayed there, each meeting the items it met.
 * @param {string} endpoint DynamoDB Local @param {string} from @param {string} to
 */
export async function copyTable(endpoint, from, to) {
  await ensureTable({ endpoint, tableName: to });
  const client = dynamoClient(endpoint); // left open on a failure, which ends the benchmark
  for await (const { Items = [] } of paginateScan({ client }, { TableName: from })) {
    await pool(Math.ceil(Items.length / 25), 8, async (i) => {
      const writes = Items.slice(i * 25, i * 25 + 25).map((Item) => ({ PutRequest: { Item } }));
      const answer = await client.send(new BatchWriteItemCommand({ RequestItems: { [to]: writes } }));
      if (answer.UnprocessedItems?.[to]?.length) throw new Error(`copying ${from}: items left unwritten`);
    });
  }
  client.destroy();
}

/**
 * @param {string} target DynamoDB Local endpoint
 * @returns {Promise<{ url: string, log: Counted[], close: () => Promise<void>,
 *   replay: (entries: Counted[], concurrency: number, table: { from: string, to: string }) => Promise<{ ms: number, refused: number }> }>}
 */
export async function countingProxy(target) {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  /** @type {Counted[]} */
  const log = [];
  const server = http.createServer((req, res) => {
    const chunks = /** @type {Buffer[]} */ ([]);
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const op = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
      let body = Buffer.concat(chunks);
      /** @type {any} */
      let input;
      try {
        input = JSON.parse(body.toString('utf8'));
        input.ReturnConsumedCapacity = 'INDEXES';
        body = Buffer.from(JSON.stringify(input));
      } catch {
        // not JSON: pass as is
      }
      const headers = { ...req.headers, 'content-length': String(body.length) };
      const forward = http.request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent },
        (answer) => {
          const parts = /** @type {Buffer[]} */ ([]);
          answer.on('data', (chunk) => parts.push(chunk));
          answer.on('end', () => {
            const raw = Buffer.concat(parts);
            let units = { read: 0, write: 0 };
            try {
              units = billedUnits(op, input, JSON.parse(raw.toString('utf8')));
            } catch {
              // not JSON
            }
            const kept = ['content-type', 'x-amz-target', 'authorization'].map((h) => [
              h,
              String(req.headers[h]),
            ]);
            const refused = refusedWrites(raw.toString('utf8'));
            log.push({ op, ...units, refused, headers: Object.fromEntries(kept), body });
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(raw);
          });
        },
      );
      forward.on('error', (error) => {
        res.writeHead(502);
        res.end(String(error));
      });
      forward.end(body);
    });
  });
  const { url } = await listenLocal(server);
  return {
    url,
    log,
    /**
     * Sends `entries` again straight to DynamoDB Local, as recorded but for the table's name (`from`
     * becomes `to`; no item holds it); resolves to the time taken and the conditional writes refused.
     */
    replay: async (entries, concurrency, { from, to }) => {
      const started = Date.now();
      let refused = 0;
      await pool(entries.length, concurrency, async (i) => {
        const { headers, body } = /** @type {Counted} */ (entries[i]);
        const renamed = body.toString('utf8').replaceAll(from, to);
        refused += refusedWrites(
          await (await fetch(target, { method: 'POST', headers, body: renamed })).text(),
        );
      });
      return { ms: Date.now() - started, refused };
    },
    close: () => {
      agent.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

/**
 * @param {{ routes: import('./routes.mjs').Route[], fixtures: import('./routes.mjs').Fixtures,
 *   bundles: Record<string, string>, endpoint: string, consumerHits: () => number, print: (line: string) => void }} options
 */
export async function storeCapacity({ routes, fixtures, bundles, endpoint, consumerHits, print }) {
  const proxy = await countingProxy(endpoint);
  const previous = process.env.AWS_ENDPOINT_URL_DYNAMODB;
  process.env.AWS_ENDPOINT_URL_DYNAMODB = proxy.url;
  print(
    [
      '\n## 3. Store calls and the capacity AWS bills per operation (ReturnConsumedCapacity: INDEXES, via a counting proxy)',
      `prices: us-east-1 on-demand, $${PRICES.writeRequestUnit} per million WRU, $${PRICES.readRequestUnit} per million RRU`,
      'operation                         DynamoDB requests                                RRU    WRU   $/1M req  budget',
    ].join('\n'),
  );
  try {
    for (const route of routes) {
      const file = bundles[route.fn];
      if (!file) throw new Error(`no bundle for ${route.fn}`);
      // A fresh instance, so its client is built now, pointing at the proxy; one request warms it
      // (as a Lambda instance is warm for all but its first request), the next is counted.
      const bundle = await loadFresh(file);
      const warmup = await route.sample(fixtures);
      await bundle.handler(warmup.event, lambdaContext());
      await warmup.cleanup?.();
      const sample = await route.sample(fixtures);
      const hitsBefore = consumerHits();
      proxy.log.length = 0;
      await runSample(route, bundle, sample);
      const posts = consumerHits() - hitsBefore;
      const counted = [...proxy.log];
      await sample.cleanup?.();
      /** @type {Record<string, number>} */
      const byOp = {};
      const perOp = [];
      let read = 0;
      let write = 0;
      for (const entry of counted) {
        byOp[entry.op] = (byOp[entry.op] ?? 0) + 1;
        perOp.push(`${entry.op} ${entry.read || entry.write}`);
        read += entry.read;
        write += entry.write;
      }
      const dollars = read * PRICES.readRequestUnit + write * PRICES.writeRequestUnit;
      const budget = route.storeBudget;
      const extra = Object.entries(byOp).reduce(
        (n, [op, count]) => n + Math.max(0, count - (budget.allowed[op] ?? 0)),
        0,
      );
      const calls = Object.entries(byOp)
        .map(([op, count]) => `${count}×${op}`)
        .join(' + ');
      const postText = posts > 0 ? ` + ${posts} POST` : '';
      print(
        `${route.name.padEnd(33)} ${`${counted.length}: ${calls}${postText}`.padEnd(48)} ${read.toFixed(1).padStart(5)} ${write.toFixed(1).padStart(5)} ${dollars.toFixed(3).padStart(9)}  ${budget.text}: ${extra} over, ${verdict('3 store calls', route.name, extra, 0)}`,
      );
      print(`${''.padEnd(34)}units per request: ${perOp.join(', ')}`);
    }
    print('(each counted on a warm instance; units as AWS bills them, index entries included)');
  } finally {
    process.env.AWS_ENDPOINT_URL_DYNAMODB = previous;
    await proxy.close();
  }
}

/**
 * The SQS requests the local queue served or played (sends, the event sources' receives and
 * deletes, visibility changes), as SQS bills them: each carries well under 64 KB (at most ten
 * messages of about 1 KB), so each is one billed request.
 * @param {ReturnType<import('../scripts/local-queue.mjs').LocalQueue['stats']>} stats
 */
export const sqsRequests = (stats) =>
  Object.values(stats).reduce(
    (n, q) => n + q.sendRequests + q.receiveRequests + q.deleteRequests + q.visibilityChanges,
    0,
  );

/**
 * Prints what one notification costs in AWS, from what a run counted for `notifications` of them:
 * the DynamoDB requests and units as billed (countingProxy), the SQS requests as billed
 * (sqsRequests), the Lambda invocations and GB-seconds (each invocation's billed duration at its
 * function's memory in serverless.yml) and the HTTP API requests, priced per million at PRICES.
 * Each count is printed beside its budget, so that a change adding a request, a unit or an
 * invocation per notification fails; the GB-seconds and dollars follow this machine's durations
 * (DynamoDB Local, a shared CPU: an upper bound of AWS's) and are printed without one.
 * @param {string} part @param {(line: string) => void} print
 * @param {{ notifications: number, dynamo: Counted[], sqsRequests: number, invocations: { fn: string, ms: number }[],
 *   memoryMb: Record<string, number>, apiRequests: number }} run
 * @param {{ dynamoRequests: number, readUnits: number, writeUnits: number, sqsRequests: number, invocations: number }} budget
 */
export function printNotificationCost(part, print, run, budget) {
  const { dynamo, invocations } = run;
  const per = (/** @type {number} */ total) => total / Math.max(1, run.notifications);
  const tally = (/** @type {string[]} */ names) =>
    [...new Set(names)].map((name) => `${name} ${names.filter((n) => n === name).length}`).join(', ');
  const sum = (/** @type {number[]} */ values) => values.reduce((n, v) => n + v, 0);
  const read = per(sum(dynamo.map((e) => e.read)));
  const write = per(sum(dynamo.map((e) => e.write)));
  const sqs = per(run.sqsRequests);
  const invoked = per(invocations.length);
  const gbSeconds = per(
    sum(invocations.map((i) => (Math.ceil(i.ms) / 1000) * ((run.memoryMb[i.fn] ?? 0) / 1024))),
  );
  const api = per(run.apiRequests);
  const dollars = {
    DynamoDB: read * PRICES.readRequestUnit + write * PRICES.writeRequestUnit,
    SQS: sqs * PRICES.sqsRequest,
    Lambda: invoked * PRICES.lambdaRequest + gbSeconds * 1e6 * PRICES.lambdaGbSecond,
    'HTTP API': api * PRICES.httpApiRequest,
  };
  const spent = Object.entries(dollars).map(([name, d]) => `${name} ${d.toFixed(2)}`);
  /** @type {[string, number, number | undefined, string][]} */
  const rows = [
    ['DynamoDB requests', per(dynamo.length), budget.dynamoRequests, tally(dynamo.map((e) => e.op))],
    ['DynamoDB read units', read, budget.readUnits, 'as billed'],
    ['DynamoDB write units', write, budget.writeUnits, 'as billed, index entries included'],
    ['SQS requests', sqs, budget.sqsRequests, 'as billed'],
    ['Lambda invocations', invoked, budget.invocations, tally(invocations.map((i) => i.fn))],
    ['Lambda GB-seconds', gbSeconds, undefined, "billed durations measured here: this machine's"],
    ['HTTP API requests', api, undefined, ''],
    ['$ per million notifications', sum(Object.values(dollars)), undefined, spent.join(' + ')],
  ];
  print('  in AWS, per notification (us-east-1 list prices: docs/benchmarks.md)');
  for (const [label, value, max, note] of rows) {
    const judged = max === undefined ? informational(part, label) : verdict(part, label, value, max);
    print(`    ${label.padEnd(28)} ${value.toPrecision(3).padStart(8)}  ${judged}  (${note})`);
  }
}
