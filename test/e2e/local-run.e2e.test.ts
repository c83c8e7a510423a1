/**
 * What a developer running `npm start` relies on: the service's settings given in the shell reach
 * the handlers, as the README's configuration table says — both a setting serverless.yml also sets
 * (DELIVERY_RETRY_WINDOW_SECONDS) and one it does not (EVENT_TIME_TOLERANCE_MS) — and packaging
 * the stack in the same checkout leaves the running server working. A DynamoDB Local of its own
 * keeps this file's publishers out of the other end-to-end file's table-wide checks.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureTable, freePort, startDynamoDbLocal } from '../../scripts/dynamodb-local';
import { type Offline, startOffline } from '../../scripts/offline';
import { lockStateEvent, uniqueCluster } from '../support/fixtures';
import { rawRequest } from '../support/raw-http';

/** tsx's loader, by path: the scripts below run in folders of their own, where `tsx` does not resolve. */
const TSX = createRequire(import.meta.url).resolve('tsx');

let db: Awaited<ReturnType<typeof startDynamoDbLocal>>;
let api: Offline;
const failing = http.createServer((_req, res) => res.writeHead(503).end());

beforeAll(async () => {
  db = await startDynamoDbLocal({ inMemory: true, quiet: true });
  await ensureTable({ endpoint: db.endpoint, tableName: 'ocloud-notifications-local' });
  api = await startOffline({
    dynamoEndpoint: db.endpoint,
    quiet: true,
    env: {
      EVENT_TIME_TOLERANCE_MS: '60000',
      DELIVERY_RETRY_WINDOW_SECONDS: '1',
      DELIVERY_BACKOFF_BASE_MS: '200',
    },
  });
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  failing.closeAllConnections();
  failing.close();
  await api?.stop();
  await db?.stop();
});

async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

/** `serverless package --stage prod` in this checkout, into a temporary folder; `buildFolder`: esbuild's work folder. */
async function packageStack(buildFolder?: string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ocloud-package-'));
  try {
    await promisify(execFile)(
      'node_modules/.bin/serverless',
      ['package', '--stage', 'prod', '--package', dir],
      {
        env: {
          ...process.env,
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          ...(buildFolder ? { OCLOUD_BUILD_FOLDER: buildFolder } : {}),
        },
        timeout: 200_000,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('settings given in the shell take effect under serverless offline', () => {
  it('EVENT_TIME_TOLERANCE_MS and DELIVERY_RETRY_WINDOW_SECONDS', async () => {
    const node = `/${uniqueCluster()}/site-1/node-1`;
    const address = `${node}/sync/ptp-status/lock-state`;
    const publisher = await post('/publishers', { ResourceAddress: address });
    expect(publisher.status).toBe(201);
    const { port } = failing.address() as { port: number };
    const subscription = await post('/subscriptions', {
      ResourceAddress: address,
      EndpointUri: `http://127.0.0.1:${port}/events`,
    });
    expect(subscription.status).toBe(201);

    // 30 s ahead: refused with the default tolerance of 2 s, accepted with 60 s.
    const time = new Date(Date.now() + 30_000).toISOString();
    const published = await post(
      `/publishers/${publisher.body.SubscriptionId}/events`,
      lockStateEvent({ node, time }),
    );
    expect(published.status, JSON.stringify(published.body)).toBe(202);

    // The consumer always fails: dead-lettered once the 1 s window has ended, not after an hour.
    const letter = await vi.waitFor(
      async () => {
        const response = await fetch(`${api.queue?.url}/queues/dead-letter/messages`);
        const { messages } = (await response.json()) as { messages: { body: string }[] };
        const found = messages
          .map((m) => JSON.parse(m.body))
          .find((l) => l.subscriptionId === subscription.body.SubscriptionId);
        if (!found) throw new Error('not dead-lettered yet');
        return found;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(letter.reason).toMatch(/^the retry window of 1 s ended/);
  });
});

describe('packaging the stack in the same checkout', () => {
  it('leaves the running server answering from the handlers it built', { timeout: 240_000 }, async () => {
    await packageStack();

    const health = await fetch(`${api.url}/health`);
    expect([health.status, await health.text()]).toEqual([200, 'OK']);
    const node = `/${uniqueCluster()}/site-1/node-1`;
    const created = await post('/publishers', { ResourceAddress: `${node}/sync/ptp-status/lock-state` });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  });
});

describe('npm run simulate', () => {
  const simulate = (cwd: string, env: Record<string, string>) =>
    promisify(execFile)(process.execPath, ['--import', TSX, join(process.cwd(), 'scripts/simulate.ts')], {
      cwd,
      env: { ...process.env, ...env },
      timeout: 120_000,
    });

  it("follows PORT and CONSUMER_PORT and plays every node's story: the consumer verifies FREERUN, then LOCKED again", async () => {
    const consumer = await startSampleConsumer();
    try {
      const { stdout } = await simulate(consumer.dir, {
        PORT: String(api.port),
        CONSUMER_PORT: String(consumer.port),
        INTERVAL_MS: '1',
      });
      await waitForQueueToDrain();
      expect(stdout).toMatch(/Done: the consumer verified \d+ notifications/);
      expect(consumer.output()).not.toContain('REJECTED');
      const lockStates = new Map<string, string[]>();
      for (const [, address = '', value = ''] of consumer
        .output()
        .matchAll(/event\.sync\.ptp-status\.ptp-state-change @ \S+: (\S+)=(\w+)/g)) {
        lockStates.set(address, [...(lockStates.get(address) ?? []), value]);
      }
      expect(lockStates.size).toBe(6); // the subscribed cluster's 2 sites × 3 nodes
      for (const [address, states] of lockStates) {
        expect(states.lastIndexOf('LOCKED'), address).toBeGreaterThan(states.indexOf('FREERUN'));
        expect(states.indexOf('FREERUN'), address).toBeGreaterThan(-1);
      }
    } finally {
      await consumer.stop();
    }
  }, 120_000);

  it('fails (exit 1) and says so when nothing arrived: here the consumer verifies with another secret', async () => {
    const consumer = await startSampleConsumer();
    try {
      const failed = await simulate(consumer.dir, {
        PORT: String(api.port),
        CONSUMER_PORT: String(consumer.port),
        SIGNING_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
        INTERVAL_MS: '1',
        STEPS: '2',
      }).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stderr).toContain(`Nothing arrived at http://127.0.0.1:${consumer.port}/events`);
      expect(consumer.output()).toContain('REJECTED');
    } finally {
      await consumer.stop();
    }
  });

  it('says so when no service is running at PORT', async () => {
    const port = await freePort();
    const failed = await simulate(tmpdir(), { PORT: String(port) }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain(`No O-Cloud Notification service answers at http://127.0.0.1:${port}`);
    expect(failed?.stderr).toContain('npm start');
  });
});

/**
 * `npm run consumer` (scripts/consumer.ts) in a folder of its own, where it keeps its secret
 * (.data/consumer-secret) for the simulator and the tour run there to read.
 */
async function startSampleConsumer(env: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'ocloud-consumer-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', TSX, join(process.cwd(), 'scripts/consumer.ts')], {
    cwd: dir,
    env: { ...process.env, CONSUMER_PORT: String(port), ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  await vi.waitFor(
    () => {
      if (!output.includes('listening')) throw new Error(`not listening yet: ${output}`);
    },
    { timeout: 10_000 },
  );
  return {
    dir,
    port,
    output: () => output,
    async stop() {
      child.kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Every notification the simulator caused has been delivered: the local queue holds none. */
async function waitForQueueToDrain(): Promise<void> {
  await vi.waitFor(
    async () => {
      for (const name of ['fan-out', 'delivery']) {
        const response = await fetch(`${api.queue?.url}/queues/${name}/messages`);
        const { messages } = (await response.json()) as { messages: unknown[] };
        if (messages.length > 0) throw new Error(`${messages.length} messages still on the ${name} queue`);
      }
    },
    { timeout: 60_000, interval: 100 },
  );
}

describe('npm run smoke', () => {
  const smoke = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/smoke.ts', ...args], {
      timeout: 60_000,
    }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string }) => error,
    );

  it('with --endpoint: registers, publishes, reads back, receives and verifies both notifications, cleans up', async () => {
    const port = await freePort();
    const { code, stdout } = await smoke(api.url, '--endpoint', `http://127.0.0.1:${port}/events`);
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/^ok {4}GET .*\/health \(loopback: unsigned\)$/m);
    expect(stdout).toMatch(/^ok {4}subscribe .* signature verified\)$/m);
    expect(stdout).toMatch(
      /^ok {4}publish HOLDOVER: delivered, signature verified \(\d+ ms from the POST\)$/m,
    );
    expect(stdout).toContain('Smoke test passed');
    const address = /register a publisher at (\S+)/.exec(stdout)?.[1] ?? '';
    const left = await fetch(`${api.url}/publishers?ResourceAddress=${encodeURIComponent(address)}`);
    expect(left.status).toBe(404); // cleaned up
  });

  it('without --endpoint: checks the consumer routes, subscribes nothing', async () => {
    const { code, stdout } = await smoke(`${api.url.replace(/\/api\/ocloudNotifications\/v2$/, '')}/`);
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/^ok {4}consumer routes: /m);
    expect(stdout).not.toContain('subscribe http');
  });

  it('fails, naming the step, when the endpoint does not reach its listener', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}/events`;
    const { code, stdout } = await smoke(
      api.url,
      '--endpoint',
      endpoint,
      '--listen',
      String(await freePort()),
    );
    expect(code).toBe(1);
    expect(stdout).toMatch(new RegExp(`^FAIL  subscribe ${endpoint} .*: expected 201, got 400`, 'm'));
  });
});

describe("the README's tour", () => {
  it('runs top to bottom as written against npm start and npm run consumer, which verifies every request', async () => {
    const readme = await readFile(join(process.cwd(), 'README.md'), 'utf8');
    const tour = /## A tour of the API[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(tour, 'the tour block').toBeDefined();
    const consumer = await startSampleConsumer();
    try {
      const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', tour ?? 'false'], {
        cwd: consumer.dir,
        env: { ...process.env, PORT: String(api.port), CONSUMER_PORT: String(consumer.port) },
        timeout: 60_000,
      });
      const statusLines = stdout.split('\n').filter((line) => line.startsWith('HTTP/'));
      expect(statusLines.map((line) => line.split(' ')[1])).toEqual(['202', '202', '204', '204']);
      expect(stdout).toContain('"SigningSecret":"whsec_');
      expect(stdout).toMatch(
        /\[\{"ResourceAddress":"[^"]+","LastDelivered":\{"Source":"\/sync\/ptp-status\/lock-state"/,
      );
      expect(stdout).toContain('{"Redriven":[],"Dropped":[],"More":false}');
      expect(stdout.trimEnd().endsWith('OK')).toBe(true);
      // The initial notification (LOCKED) at subscribe time, then HOLDOVER, both verified.
      await vi.waitFor(() => expect(consumer.output()).toMatch(/#2 .* verified/), { timeout: 10_000 });
      const values = [...consumer.output().matchAll(/ptp-state-change @ \S+: \S+=(\w+)/g)].map((m) => m[1]);
      expect(values).toEqual(['LOCKED', 'HOLDOVER']);
      expect(consumer.output()).not.toContain('REJECTED');
    } finally {
      await consumer.stop();
    }
  });
});

describe("the README's verifying consumer", () => {
  it('runs as written: prints what it verified, and refuses (401) what it cannot verify', async () => {
    const readme = await readFile(join(process.cwd(), 'README.md'), 'utf8');
    const code = /## Receiving notifications[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code, 'the consumer block').toBeDefined();
    const port = await freePort();
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    // Run from the checkout, where its one dependency, standardwebhooks, is installed.
    const child = spawn(process.execPath, ['--input-type=module', '-e', code ?? ''], {
      env: { ...process.env, SIGNING_SECRET: secret, CONSUMER_PORT: String(port) },
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    try {
      await vi.waitFor(() => expect(output).toContain(`verifying on http://127.0.0.1:${port}/events`), {
        timeout: 10_000,
      });
      const node = `/${uniqueCluster()}/site-1/node-1`;
      const address = `${node}/sync/ptp-status/lock-state`;
      const publisher = await post('/publishers', { ResourceAddress: address });
      const event = lockStateEvent({ node, value: 'HOLDOVER' });
      await post(`/publishers/${publisher.body.SubscriptionId}/events`, event);

      const subscribed = await post('/subscriptions', {
        ResourceAddress: address,
        EndpointUri: `http://127.0.0.1:${port}/events`,
        SigningSecret: secret,
      });
      expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(201);
      expect(output).toContain(`${event.type} ${address} HOLDOVER`);

      const forged = await fetch(`http://127.0.0.1:${port}/events`, {
        method: 'POST',
        headers: { 'webhook-id': 'x', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) },
        body: JSON.stringify(event),
      });
      expect(forged.status).toBe(401);
      await vi.waitFor(() => expect(output).toContain('rejected (Missing required headers)'));
    } finally {
      child.kill();
    }
  });
});

/** One raw request, exactly as written (fetch would normalise the path). */
async function raw(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: Buffer | string,
): Promise<{ status: number; type: string; body: string }> {
  const answer = await rawRequest(api.port, method, `/api/ocloudNotifications/v2${path}`, headers, body);
  return { status: answer.status, type: String(answer.headers['content-type'] ?? ''), body: answer.body };
}

function expectProblemAnswer(answer: { status: number; type: string; body: string }, status?: number) {
  expect(answer.status, answer.body).toBeGreaterThanOrEqual(400);
  expect(answer.status, answer.body).toBeLessThan(500);
  if (status) expect(answer.status).toBe(status);
  expect(answer.type).toMatch(/^application\/problem\+json/);
  const document = JSON.parse(answer.body);
  expect(Object.keys(document).sort()).toEqual(['detail', 'status', 'title', 'type']);
  expect(document.status).toBe(answer.status);
}

describe('what serverless offline would refuse by itself is a problem document', () => {
  it('a generated corpus of malformed percent-encodings in paths and queries', async () => {
    const pieces = [
      '%',
      '%Z',
      '%ZZ',
      '%E',
      '%ED%A0%80',
      '%C0%AF',
      '%FF',
      '%F0%9F',
      '%%41',
      '%2',
      '%G1',
      'a',
      '5',
      '%41',
    ];
    let seed = 7;
    const pick = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return pieces[seed % pieces.length] ?? '%';
    };
    const cases: string[] = [
      '/subscriptions/%ZZ',
      '/subscriptions/%ED%A0%80',
      '/%ZZ/CurrentState',
      '/subscriptions?ResourceAddress=%ZZ',
    ];
    for (let i = 0; i < 200; i++) {
      const junk = `${pick()}${pick()}${pick()}%${pick()}`;
      cases.push(i % 2 ? `/subscriptions/${junk}` : `/publishers?ResourceAddress=/${junk}`);
    }
    for (const path of cases) {
      const answer = await raw('GET', path);
      if (answer.status < 400) continue; // some draws are valid encodings
      expectProblemAnswer(answer);
    }
    expectProblemAnswer(await raw('GET', '/subscriptions/%ZZ'), 400);
    expectProblemAnswer(await raw('GET', '/subscriptions/%ED%A0%80'), 400);
  });

  it.each(['garbage', 'application/json, text/plain', 'text/plain; charset', ';', 'application/'])(
    'a Content-Type of %j → a 4xx problem document',
    async (type) => {
      expectProblemAnswer(await raw('POST', '/publishers', { 'content-type': type }, '{}'));
    },
  );

  it('a body over 10 MiB → 413, a request line over 16 KiB → 431', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 'a');
    expectProblemAnswer(await raw('POST', '/publishers', { 'content-type': 'application/json' }, big), 413);
    expectProblemAnswer(await raw('GET', `/subscriptions?x=${'a'.repeat(20_000)}`), 431);
  });
});

// Last in the file: it breaks the server on purpose.
describe('a function that cannot be loaded', () => {
  it('answers 5xx problem documents, /health 503 with Retry-After, never 200', {
    timeout: 240_000,
  }, async () => {
    // What packaging did before each server built into a folder of its own: the server's bundles
    // are replaced under it while it runs.
    await packageStack(join('.esbuild-local', String(api.port)));

    const health = await fetch(`${api.url}/health`);
    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toBe('5');
    expect(health.headers.get('content-type')).toBe('application/problem+json');
    expect(await health.json()).toMatchObject({ title: 'Service Unavailable', status: 503 });

    const created = await post('/publishers', { ResourceAddress: '/c/s/n' });
    expect(created.status).toBe(500);
    expect(created.body).toMatchObject({ type: 'about:blank', title: 'Internal Server Error', status: 500 });
    expect(String(created.body.detail)).toContain('npm start console');
  });
});
