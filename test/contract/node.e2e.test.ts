/**
 * The contract suite (test/contract/contract-suite.ts) against a node's own API: the agent's
 * package as a node gets it (`npm run build:agent`, installed into an empty folder), run as
 * `ocloud-node-agent --serve` with no daemon and a region nothing answers at, on a state
 * directory of the test's own. Then what only a node has (docs/agent.md): its refusals of what is
 * not its node's, its health in JSON, a subscription above the node, and its durability: killed
 * with SIGKILL while a consumer refuses, restarted on the same state directory, it delivers what
 * it had accepted, in order, to the subscription it still has, whose secret its files never held
 * in clear.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BASE_PATH as API_PATH } from '../../lib/http/base-path';
import { version as packageVersion } from '../../package.json';
import { installAgentPackage } from '../../scripts/agent-lab';
import { freePort } from '../../scripts/dynamodb-local';
import { startConsumer } from '../support/consumer';
import { lockStateEvent, uniqueCluster } from '../support/fixtures';
import { rawRequest } from '../support/raw-http';
import { contractSuite } from './contract-suite';
import { type CallOptions, callApi, expectProblem, verifiedBody } from './http';

/** The agent's node: every address the suite uses is under it. */
const NODE = '/contract/site-3/node-7';
const POLLED_QUEUES = ['fan-out', 'delivery', 'cleanup'] as const;

let dir: string;
let bin: string;
let stateDir: string;
let port: number;
let serviceUrl: string;
let agent: { process: ChildProcess; output: () => string; exited: Promise<void> } | undefined;

const apiUrl = () => `http://127.0.0.1:${port}${API_PATH}`;
const call = (method: string, path: string, options?: CallOptions) =>
  callApi(apiUrl(), method, path, options);

/** `ocloud-node-agent --serve` from the installed package, once its GET /health answers. */
async function startAgent(): Promise<void> {
  const child = spawn(
    bin,
    ['--serve', `127.0.0.1:${port}`, '--node', NODE, '--service', serviceUrl, '--state-dir', stateDir],
    { cwd: dir, env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-50_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  agent = { process: child, output: () => output, exited };
  await vi.waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`the agent exited (${child.exitCode}):\n${output}`);
      const response = await fetch(`${apiUrl()}/health`, { signal: AbortSignal.timeout(2000) });
      expect(response.status, output).toBe(200);
      await response.body?.cancel();
    },
    { timeout: 30_000, interval: 100 },
  );
}

interface NodeHealthBody {
  queues: Record<string, { total: number; visible: number }>;
  outbox: { depth: number };
  region: { url: string; reachable: boolean; problem?: string };
}

async function nodeHealth(): Promise<NodeHealthBody> {
  const reply = await call('GET', '/health', { headers: { accept: 'application/json' } });
  expect(reply.status, reply.raw).toBe(200);
  return reply.body;
}

/**
 * The node's delivery is idle when every queue an event source polls is empty (GET /health in
 * JSON counts them); the dead-letter queue only keeps what was given up on.
 */
async function waitForNodeIdle(): Promise<void> {
  await vi.waitFor(
    async () => {
      const { queues } = await nodeHealth();
      const busy = POLLED_QUEUES.filter((name) => (queues[name]?.total ?? 0) > 0);
      if (busy.length > 0) throw new Error(`queues still busy: ${JSON.stringify(queues)}`);
    },
    { timeout: 15_000, interval: 20 },
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ocloud-node-contract-'));
  // The package, as a node gets it: built, then installed into an empty folder.
  const installed = installAgentPackage(join(dir, 'node'));
  bin = join(installed, 'node_modules', '.bin', 'ocloud-node-agent');
  stateDir = join(dir, 'state');
  port = await freePort();
  // A port nothing listens on: the region is unreachable, and the node serves on its own.
  serviceUrl = `http://127.0.0.1:${await freePort()}`;
  await startAgent();
}, 180_000);

afterAll(async () => {
  if (agent && agent.process.exitCode === null && agent.process.signalCode === null) {
    agent.process.kill('SIGTERM');
    await agent.exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

contractSuite({
  name: `a node (ocloud-node-agent --serve for ${NODE}, installed from its package)`,
  get url() {
    return apiUrl();
  },
  freshPrefix: () => `${NODE}/${uniqueCluster()}`,
  waitForIdle: () => waitForNodeIdle(),
  serviceName: 'ocloud-node-agent',
  nodeScope: NODE,
});

describe(`only on a node (ocloud-node-agent --serve for ${NODE})`, () => {
  const consumers: Awaited<ReturnType<typeof startConsumer>>[] = [];
  const newConsumer = async () => {
    const consumer = await startConsumer();
    consumers.push(consumer);
    return consumer;
  };
  afterAll(async () => {
    await Promise.all(consumers.map((consumer) => consumer.close()));
  });

  it('CurrentState answers only addresses at or under the node: 404 "not available on this node" for any other', async () => {
    const prefix = `${NODE}/${uniqueCluster()}`;
    const address = `${prefix}/sync/ptp-status/lock-state`;
    const publisher = await call('POST', '/publishers', { body: { ResourceAddress: address } });
    expect(publisher.status, publisher.raw).toBe(201);
    const event = lockStateEvent({ node: prefix });
    expect(
      (await call('POST', `/publishers/${publisher.body.SubscriptionId}/events`, { body: event })).status,
    ).toBe(202);
    expect((await call('GET', `${address}/CurrentState`)).body).toEqual(event);

    for (const other of [
      '/contract/site-3/node-8/sync/ptp-status/lock-state', // a sibling node
      '/contract/site-3', // the node's site, above it
      `/${uniqueCluster()}/site-3/node-7/sync/ptp-status/lock-state`, // another cluster
    ]) {
      const reply = await call('GET', `${other}/CurrentState`);
      expectProblem(reply, 404);
      expect(reply.body.detail, other).toContain(
        `ResourceAddress ${other} is not available on this node (${NODE})`,
      );
    }
  });

  it('POST /subscriptions for an address neither the node, under it, nor above it: 404 "the subscription resource is not available"', async () => {
    const consumer = await newConsumer();
    for (const other of ['/contract/site-3/node-8', '/contract/site-4', `/${uniqueCluster()}`]) {
      const reply = await call('POST', '/subscriptions', {
        body: { ResourceAddress: other, EndpointUri: consumer.url },
      });
      expectProblem(reply, 404);
      expect(reply.body.detail, other).toMatch(/^The subscription resource is not available/);
      expect(reply.body.detail, other).toContain(`ResourceAddress ${other} is neither node ${NODE}`);
    }
    expect(consumer.received).toHaveLength(0);
  });

  it('POST /publishers outside the node: 400 saying which node this is', async () => {
    for (const other of [
      '/contract/site-3/node-8/sync/ptp-status/lock-state',
      '/contract/site-3/sync/ptp-status/lock-state',
      `/${uniqueCluster()}/site-3/node-7/sync/ptp-status/lock-state`,
    ]) {
      const reply = await call('POST', '/publishers', { body: { ResourceAddress: other } });
      expectProblem(reply, 400);
      expect(reply.body.detail, other).toContain(`This is the API of node ${NODE}`);
      expect(reply.body.detail, other).toContain(other);
    }
  });

  it('GET /health: OK as the region answers it, and with Accept: application/json what the node follows (NodeHealth)', async () => {
    const plain = await call('GET', '/health');
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type') ?? '').toMatch(/^text\/plain/);
    expect(plain.raw).toBe('OK');

    const reply = await call('GET', '/health', { headers: { accept: 'application/json' } });
    expect(reply.status, reply.raw).toBe(200);
    expect(reply.headers.get('content-type') ?? '').toMatch(/^application\/json/);
    expect(Object.keys(reply.body).sort()).toEqual(
      ['daemons', 'node', 'outbox', 'queues', 'region', 'status', 'version'].sort(),
    );
    expect(reply.body).toMatchObject({
      status: 'OK',
      node: NODE,
      version: packageVersion,
      daemons: [], // --serve with no daemon: a node whose producers are other processes
      region: { url: `${serviceUrl}${API_PATH}`, reachable: expect.any(Boolean) },
      outbox: { depth: expect.any(Number) },
    });
    expect(Object.keys(reply.body.queues).sort()).toEqual(['cleanup', 'dead-letter', 'delivery', 'fan-out']);
    for (const counts of Object.values(reply.body.queues)) {
      expect(counts).toEqual({ total: expect.any(Number), visible: expect.any(Number) });
    }
  });

  it('every event accepted on the node goes to the outbox for the region, which is unreachable here', async () => {
    const prefix = `${NODE}/${uniqueCluster()}`;
    const publisher = await call('POST', '/publishers', {
      body: { ResourceAddress: `${prefix}/sync/ptp-status/lock-state` },
    });
    expect(publisher.status, publisher.raw).toBe(201);
    const before = (await nodeHealth()).outbox.depth;
    const accepted = await call('POST', `/publishers/${publisher.body.SubscriptionId}/events`, {
      body: lockStateEvent({ node: prefix }),
    });
    expect(accepted.status, accepted.raw).toBe(202);
    await vi.waitFor(
      async () => {
        const health = await nodeHealth();
        expect(health.outbox.depth).toBeGreaterThan(before);
        expect(health.region.reachable).toBe(false);
      },
      { timeout: 15_000, interval: 100 },
    );
  });

  it("a subscription above the node (its site) receives the node's events", async () => {
    const prefix = `${NODE}/${uniqueCluster()}`;
    const address = `${prefix}/sync/ptp-status/lock-state`;
    const publisher = await call('POST', '/publishers', { body: { ResourceAddress: address } });
    expect(publisher.status, publisher.raw).toBe(201);
    const consumer = await newConsumer();
    const subscribed = await call('POST', '/subscriptions', {
      body: { ResourceAddress: '/contract/site-3', EndpointUri: consumer.url },
    });
    expect(subscribed.status, subscribed.raw).toBe(201);
    expect(subscribed.body.ResourceAddress).toBe('/contract/site-3');
    try {
      const event = lockStateEvent({ node: prefix, value: 'FREERUN' });
      const accepted = await call('POST', `/publishers/${publisher.body.SubscriptionId}/events`, {
        body: event,
      });
      expect(accepted.status, accepted.raw).toBe(202);
      await vi.waitFor(
        () => expect(consumer.received.map((notification) => notification.body)).toContainEqual(event),
        { timeout: 10_000, interval: 10 },
      );
      const notification = consumer.received.find(
        (received) => (received.body as { id?: string }).id === event.id,
      );
      expect(verifiedBody(subscribed.body.SigningSecret, notification)).toEqual(event);
    } finally {
      expect((await call('DELETE', `/subscriptions/${subscribed.body.SubscriptionId}`)).status).toBe(204);
    }
  });

  it('survives SIGKILL: restarted on its state directory it delivers what it had accepted, in order, to the subscription it still has, its secret sealed', async () => {
    const consumer = await switchableConsumer();
    try {
      const prefix = `${NODE}/${uniqueCluster()}`;
      const [a, b] = [`${prefix}/a`, `${prefix}/b`];
      for (const node of [a, b]) {
        const registered = await call('POST', '/publishers', {
          body: { ResourceAddress: `${node}/sync/ptp-status/lock-state` },
        });
        expect(registered.status, registered.raw).toBe(201);
      }
      const publishers = (await call('GET', `/publishers?ResourceAddress=${encodeURIComponent(prefix)}`))
        .body as {
        SubscriptionId: string;
        ResourceAddress: string;
      }[];
      const publisherOf = (node: string) =>
        publishers.find((p) => p.ResourceAddress === `${node}/sync/ptp-status/lock-state`)?.SubscriptionId ??
        '';

      // No state yet, so no initial notification: the subscription is made while the consumer refuses.
      const subscribed = await call('POST', '/subscriptions', {
        body: { ResourceAddress: prefix, EndpointUri: consumer.url },
      });
      expect(subscribed.status, subscribed.raw).toBe(201);
      const { SigningSecret: secret, ...info } = subscribed.body;

      const t0 = Date.now();
      const at = (ms: number) => new Date(t0 + ms).toISOString();
      const a1 = lockStateEvent({ node: a, value: 'HOLDOVER', time: at(0) });
      const b1 = lockStateEvent({ node: b, value: 'LOCKED', time: at(1) });
      const a2 = lockStateEvent({ node: a, value: 'FREERUN', time: at(2) });
      for (const [node, event] of [
        [a, a1],
        [b, b1],
        [a, a2],
      ] as const) {
        const accepted = await call('POST', `/publishers/${publisherOf(node)}/events`, { body: event });
        expect(accepted.status, accepted.raw).toBe(202);
      }
      // Delivery is under way and refused (503): then the agent dies, its queues as they were.
      await vi.waitFor(() => expect(consumer.refused).toBeGreaterThan(0), { timeout: 15_000, interval: 10 });
      const running = agent;
      running?.process.kill('SIGKILL');
      await running?.exited;
      expect(running?.process.signalCode).toBe('SIGKILL');

      consumer.accept();
      await startAgent();

      const accepted = () => consumer.accepted.map((n) => (n.body as { id: string }).id);
      await vi.waitFor(
        () => {
          expect(accepted()).toContain(a2.id);
          expect(accepted()).toContain(b1.id);
        },
        { timeout: 60_000, interval: 50 },
      );
      await waitForNodeIdle();
      // In order: each address's events never older after newer, the newest of each delivered. At
      // least once: a notification that had left its message for a retry when the process died may
      // come again with that message's replay, right after itself (docs/delivery.md, "Ordering cursors").
      const ofA = accepted().filter((id) => id === a1.id || id === a2.id);
      const firstA2 = ofA.indexOf(a2.id);
      expect(firstA2, ofA.join(' → ')).toBeGreaterThanOrEqual(0);
      expect(
        ofA.slice(firstA2).every((id) => id === a2.id),
        ofA.join(' → '),
      ).toBe(true);
      expect(
        ofA.slice(0, firstA2).every((id) => id === a1.id),
        ofA.join(' → '),
      ).toBe(true);
      expect(accepted().filter((id) => id === b1.id).length).toBeGreaterThanOrEqual(1);
      expect(accepted().every((id) => [a1.id, a2.id, b1.id].includes(id))).toBe(true);
      // Signed with the secret it was given before the restart.
      for (const notification of consumer.accepted) {
        expect(verifiedBody(secret, notification)).toEqual(notification.body);
      }

      const still = await call('GET', `/subscriptions/${info.SubscriptionId}`);
      expect(still.status, still.raw).toBe(200);
      expect(still.body).toEqual(info);
      expect((await call('GET', '/subscriptions')).body).toContainEqual(info);

      // Sealed: no file under the state directory holds the secret, nor its key material, in clear.
      const key = String(secret).replace(/^whsec_/, '');
      const keyBytes = Buffer.from(key, 'base64');
      const files = filesUnder(stateDir);
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const content = readFileSync(file);
        expect(content.includes(String(secret)), file).toBe(false);
        expect(content.includes(key), file).toBe(false);
        expect(content.includes(keyBytes), file).toBe(false);
        expect(content.includes(keyBytes.toString('hex')), file).toBe(false);
      }
      await call('DELETE', `/subscriptions/${info.SubscriptionId}`);
    } finally {
      await consumer.close();
    }
  }, 120_000);
});

describe("what a node's HTTP layer refuses before any function runs, as npm start answers it (test/e2e/local-run.e2e.test.ts holds npm start to it)", () => {
  /** One request exactly as written (fetch would normalise the path). */
  const raw = async (
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: Buffer | string,
  ) => {
    const answer = await rawRequest(port, method, `${API_PATH}${path}`, headers, body);
    return { status: answer.status, type: String(answer.headers['content-type'] ?? ''), body: answer.body };
  };

  function expectProblemAnswer(answer: { status: number; type: string; body: string }, status?: number) {
    expect(answer.status, answer.body).toBeGreaterThanOrEqual(400);
    expect(answer.status, answer.body).toBeLessThan(500);
    if (status) expect(answer.status, answer.body).toBe(status);
    expect(answer.type).toMatch(/^application\/problem\+json/);
    const document = JSON.parse(answer.body);
    expect(Object.keys(document).sort()).toEqual(['detail', 'status', 'title', 'type']);
    expect(document.status).toBe(answer.status);
  }

  it('malformed percent-encodings in paths and queries: 400 problem documents', async () => {
    for (const path of [
      '/subscriptions/%ZZ',
      '/subscriptions/%ED%A0%80',
      '/%ZZ/CurrentState',
      `${NODE}/%C0%AF/CurrentState`,
      '/subscriptions?ResourceAddress=%ZZ',
      '/publishers?ResourceAddress=/%F0%9F',
      '/subscriptions/%',
    ]) {
      expectProblemAnswer(await raw('GET', path), 400);
    }
  });

  it.each(['garbage', 'application/json, text/plain', 'text/plain; charset', ';', 'application/'])(
    'a Content-Type of %j: a 4xx problem document',
    async (type) => {
      expectProblemAnswer(await raw('POST', '/publishers', { 'content-type': type }, '{}'));
    },
  );

  it('a body over 10 MiB: 413; a request line over 16 KiB: 431; a request that is not HTTP: 400, each a problem document', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 'a');
    expectProblemAnswer(await raw('POST', '/publishers', { 'content-type': 'application/json' }, big), 413);
    expectProblemAnswer(await raw('GET', `/subscriptions?x=${'a'.repeat(20_000)}`), 431);

    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.end('GARBAGE\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('utf8');
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head, answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expectProblemAnswer({ status: 400, type: /^content-type: (.*)$/im.exec(head)?.[1] ?? '', body }, 400);
  });
});

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** A consumer that answers 503 until told to accept, counting what it refused and keeping what it accepted. */
async function switchableConsumer() {
  const accepted: Awaited<ReturnType<typeof startConsumer>>['received'][number][] = [];
  let refused = 0;
  let accepting = false;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      if (!accepting) {
        refused++;
        res.writeHead(503).end();
        return;
      }
      accepted.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(raw),
        raw,
        at: Date.now(),
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: consumerPort } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${consumerPort}/events`,
    accepted,
    get refused() {
      return refused;
    },
    accept() {
      accepting = true;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
