// @ts-check
/**
 * Part 3, store calls and capacity. The real handler bundles talk to DynamoDB Local through a
 * counting proxy on 127.0.0.1 that sets ReturnConsumedCapacity: 'TOTAL' on every request and
 * records the operation and the ConsumedCapacity of each answer (the answers pass unchanged, so
 * the SDK's CRC32 check still holds). The handlers' code is not touched.
 */
import http from 'node:http';
import { lambdaContext, listenLocal, loadFresh, verdict } from './common.mjs';
import { runSample } from './routes.mjs';

/** us-east-1 on-demand prices, USD per million request units (since 1 Nov 2024). */
export const PRICES = { writeRequestUnit: 0.625, readRequestUnit: 0.125 };

/**
 * @param {string} target DynamoDB Local endpoint
 * @returns {Promise<{ url: string, log: { op: string, read: number, write: number }[], close: () => Promise<void> }>}
 */
export async function countingProxy(target) {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  /** @type {{ op: string, read: number, write: number }[]} */
  const log = [];
  const server = http.createServer((req, res) => {
    const chunks = /** @type {Buffer[]} */ ([]);
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const op = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
      let body = Buffer.concat(chunks);
      try {
        const input = JSON.parse(body.toString('utf8'));
        input.ReturnConsumedCapacity = 'TOTAL';
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
            const entry = { op, read: 0, write: 0 };
            try {
              const consumed = JSON.parse(raw.toString('utf8')).ConsumedCapacity;
              // DynamoDB Local reports only CapacityUnits: they are write units for writes.
              const writes = /Write|Put|Update|Delete/.test(op);
              for (const c of [consumed].flat().filter(Boolean)) {
                entry.read += Number(c.ReadCapacityUnits ?? (writes ? 0 : (c.CapacityUnits ?? 0)));
                entry.write += Number(c.WriteCapacityUnits ?? (writes ? (c.CapacityUnits ?? 0) : 0));
              }
            } catch {
              // not JSON
            }
            log.push(entry);
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
    '\n## 3. Store calls and consumed capacity per operation (ReturnConsumedCapacity: TOTAL, via a counting proxy)',
  );
  print(
    `prices: us-east-1 on-demand, $${PRICES.writeRequestUnit} per million WRU, $${PRICES.readRequestUnit} per million RRU`,
  );
  print(
    'operation                         DynamoDB requests                                RRU    WRU   $/1M req  budget',
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
    print(
      '(each counted on a warm instance; DynamoDB Local reports table capacity only: add 1 WRU per GSI item written in AWS)',
    );
  } finally {
    process.env.AWS_ENDPOINT_URL_DYNAMODB = previous;
    await proxy.close();
  }
}
