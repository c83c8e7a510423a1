// @ts-check
/**
 * A proxy in front of DynamoDB Local that counts what the handlers ask of the table: requests per
 * operation, and the capacity DynamoDB would charge (it asks for ReturnConsumedCapacity TOTAL on
 * every request and adds up the answer). DynamoDB Local does not check signatures, so changing the
 * body is harmless here.
 */
import http from 'node:http';
import { listenLocal } from './common.mjs';

/** @param {string} target e.g. http://127.0.0.1:8000 */
export async function startDynamoCounter(target) {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  /** @type {Map<string, number>} */
  let requests = new Map();
  let capacity = 0;
  const server = http.createServer((req, res) => {
    const chunks = /** @type {Buffer[]} */ ([]);
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
      requests.set(operation, (requests.get(operation) ?? 0) + 1);
      let body = Buffer.concat(chunks);
      try {
        const input = JSON.parse(body.toString());
        input.ReturnConsumedCapacity ??= 'TOTAL';
        body = Buffer.from(JSON.stringify(input));
      } catch {
        // not JSON: passed on as it is
      }
      const headers = { ...req.headers, host: upstream.host, 'content-length': String(body.length) };
      const forward = http.request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers, agent },
        (answer) => {
          const parts = /** @type {Buffer[]} */ ([]);
          answer.on('data', (chunk) => parts.push(chunk));
          answer.on('end', () => {
            const text = Buffer.concat(parts);
            // Every table-level "CapacityUnits" of the answer; cheaper than parsing it whole, which
            // matters while this process also runs the queue and the consumers.
            for (const match of text
              .toString()
              .matchAll(
                /"TableName":"[^"]*","CapacityUnits":([0-9.]+)|"CapacityUnits":([0-9.]+),"TableName"/g,
              )) {
              capacity += Number(match[1] ?? match[2] ?? 0);
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers).end(text);
          });
        },
      );
      forward.on('error', () => res.writeHead(502).end());
      forward.end(body);
    });
  });
  const { url } = await listenLocal(server);
  return {
    endpoint: url,
    reset: () => {
      requests = new Map();
      capacity = 0;
    },
    totals: () => ({ requests: [...requests.values()].reduce((a, b) => a + b, 0), capacity }),
    /** Requests per operation, e.g. "BatchGetItem 160, Query 1200". */
    describe: () =>
      [...requests]
        .sort((a, b) => b[1] - a[1])
        .map(([op, count]) => `${op} ${count}`)
        .join(', '),
    close: () => {
      server.closeAllConnections();
      agent.destroy();
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}
