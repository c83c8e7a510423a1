// @ts-check
/**
 * Part 4, throughput under load: `serverless offline` (the real bundles) against a minimal HTTP
 * server making the same DynamoDB read, under `wrk` (or, without wrk, a keep-alive Node load
 * generator), alternated in the same run. Issue 5 sets no budget here: the ratio is printed.
 */
import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { ensureTable, killOnExit, stopChild } from '../scripts/dynamodb-local.mjs';
import { API_PATH, startOffline } from '../scripts/offline.mjs';
import { informational, lockStateEvent, median, ms, nextTime, quantile, ratio, unique } from './common.mjs';

const OFFLINE_TABLE = 'ocloud-notifications-local';

function hasWrk() {
  return spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error === undefined;
}

/**
 * @param {string} url @param {number} seconds @param {number} connections
 * @returns {Promise<{ rps: number, p99: number, errors: number }>}
 */
function wrk(url, seconds, connections) {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', [
      '-t1',
      `-c${connections}`,
      `-d${seconds}s`,
      '--latency',
      '--timeout',
      '5s',
      url,
    ]);
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.on('error', reject);
    child.on('exit', () => {
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
      const p = /\s99%\s+([\d.]+)(us|ms|s)\b/.exec(out);
      const p99 = p ? Number(p[1]) * { us: 0.001, ms: 1, s: 1000 }[/** @type {'us'} */ (p[2])] : Number.NaN;
      const errors =
        Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0) +
        Number(/Socket errors:.*?timeout (\d+)/.exec(out)?.[1] ?? 0);
      resolve({ rps, p99, errors });
    });
  });
}

/** A keep-alive closed-loop load generator, for machines without wrk. */
async function nodeLoad(
  /** @type {string} */ url,
  /** @type {number} */ seconds,
  /** @type {number} */ connections,
) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const started = performance.now();
      const status = await new Promise((resolve) => {
        http
          .get(url, { agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode));
          })
          .on('error', () => resolve(0));
      });
      if (status !== 200) errors++;
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  agent.destroy();
  return { rps: latencies.length / seconds, p99: quantile(latencies, 0.99), errors };
}

/** @param {string} endpoint @param {string} consumerUrl */
async function bareServer(endpoint) {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./bare-server.mjs', import.meta.url))], {
    env: { ...process.env, DYNAMO_ENDPOINT: endpoint, TABLE_NAME: OFFLINE_TABLE },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  killOnExit(child);
  const port = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      const match = /@@port (\d+)/.exec(String(chunk));
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`bare server exited ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}${API_PATH}`, stop: () => stopChild(child) };
}

/** @param {string} url @param {string} method @param {unknown} [body] */
async function call(url, method, body) {
  const response = await fetch(url, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * @param {{ endpoint: string, consumerUrl: string, print: (line: string) => void, rounds: number, seconds: number, connections: number }} options
 */
export async function throughput({ endpoint, consumerUrl, print, rounds, seconds, connections }) {
  await ensureTable({ endpoint, tableName: OFFLINE_TABLE });
  // No queue of its own: LOCAL_QUEUE_URL (the bench's queue, which nothing polls) reaches the
  // functions from this process's environment, so no fan-out or delivery runs during the load.
  const offline = await startOffline({
    dynamoEndpoint: endpoint,
    quiet: true,
    timeoutMs: 120_000,
    localQueue: false,
  });
  const bare = await bareServer(endpoint);
  try {
    const node = `/${unique('load')}/site-1/node-1`;
    const address = `${node}/sync/ptp-status/lock-state`;
    const publisher = await call(`${offline.url}/publishers`, 'POST', { ResourceAddress: address });
    await call(
      `${offline.url}/publishers/${publisher.SubscriptionId}/events`,
      'POST',
      lockStateEvent(node, nextTime()),
    );
    const subscription = await call(`${offline.url}/subscriptions`, 'POST', {
      ResourceAddress: node,
      EndpointUri: `${consumerUrl}/load`,
    });
    const paths = {
      'GET /subscriptions/{id}': `/subscriptions/${subscription.SubscriptionId}`,
      'GET /{address}/CurrentState': `${address}/CurrentState`,
    };
    const withWrk = hasWrk();
    const tool = withWrk ? 'wrk' : 'node keep-alive generator';
    const load = withWrk ? wrk : nodeLoad;
    print(
      `\n## 4. Throughput under load (${tool}, ${connections} connections, ${rounds} × ${seconds} s each side, alternated)`,
    );
    print('route                          offline req/s  p99        bare req/s  p99        ratio req/s');
    for (const [name, path] of Object.entries(paths)) {
      // Warm both (serverless offline loads the handler on first use).
      await load(`${offline.url}${path}`, 1, connections);
      await load(`${bare.url}${path}`, 1, connections);
      const ours = [];
      const base = [];
      for (let round = 0; round < rounds; round++) {
        for (const side of round % 2 === 0 ? ['ours', 'bare'] : ['bare', 'ours']) {
          const result = await load(
            `${side === 'ours' ? offline.url : bare.url}${path}`,
            seconds,
            connections,
          );
          if (result.errors > 0) throw new Error(`${name} (${side}): ${result.errors} failed requests`);
          (side === 'ours' ? ours : base).push(result);
        }
      }
      const rps = (/** @type {{ rps: number }[]} */ r) => median(r.map((x) => x.rps));
      const p99 = (/** @type {{ p99: number }[]} */ r) => median(r.map((x) => x.p99));
      print(
        `${name.padEnd(30)} ${rps(ours).toFixed(0).padStart(13)}  ${ms(p99(ours)).padEnd(10)} ${rps(base).toFixed(0).padStart(10)}  ${ms(p99(base)).padEnd(10)} ${ratio(rps(ours) / rps(base))}  ${informational('4 throughput', name)}`,
      );
    }
  } finally {
    await bare.stop();
    await offline.stop();
  }
}
