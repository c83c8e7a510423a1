/**
 * Through `npm start`, as a developer runs it: its first run makes a local CA and client certificate
 * (LOCAL_TLS_DIR, here a temporary directory), `npm run consumer -- --tls` requires that certificate
 * and receives notifications it verifies with v1 and v1a, the README's v1a consumer runs as
 * written, and an endpoint whose certificate no trusted CA signed is refused at subscribe with why.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../scripts/dynamodb-local';
import { lockStateEvent, uniqueCluster } from '../support/fixtures';
import { type NpmStart, startNpmStart } from '../support/npm-start';
import { issue, makeCa } from './pki';

let dir: string;
let service: NpmStart;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ocloud-mtls-'));
  service = await startNpmStart(dir, await freePort(), { LOCAL_TLS_DIR: join(dir, 'tls') });
}, 200_000);

afterAll(async () => {
  for (const child of children) child.kill();
  if (service?.process.pid) {
    const exited = once(service.process, 'exit');
    process.kill(-service.process.pid, 'SIGINT');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
});

async function post(path: string, body: unknown) {
  const response = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

/** A publisher with a state, so that a subscribe sends an initial notification. */
async function publisher() {
  const node = `/${uniqueCluster()}/site-1/node-1`;
  const address = `${node}/sync/ptp-status/lock-state`;
  const created = await post('/publishers', { ResourceAddress: address });
  await post(
    `/publishers/${created.body.SubscriptionId}/events`,
    lockStateEvent({ node, value: 'HOLDOVER' }),
  );
  return address;
}

function run(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env } });
  children.push(child);
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  return () => output;
}

describe('mutual TLS and v1a under npm start', () => {
  it('makes the local CA and client certificate, which npm run consumer -- --tls requires, and v1 and v1a verify', async () => {
    expect(service.output()).toContain(
      `Client certificate for https endpoints: ${join(dir, 'tls', 'client.pem')}`,
    );
    for (const file of ['ca.pem', 'client.pem', 'client-key.pem', 'consumer.pem']) {
      expect(existsSync(join(dir, 'tls', file)), file).toBe(true);
    }
    const port = await freePort();
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const output = run(['--import', 'tsx', 'scripts/consumer.ts', '--tls'], {
      LOCAL_TLS_DIR: join(dir, 'tls'),
      CONSUMER_PORT: String(port),
      SIGNING_SECRET: secret,
      API_URL: service.url,
    });
    await vi.waitFor(
      () => expect(output()).toContain(`https://127.0.0.1:${port}/events, requiring a client certificate`),
      {
        timeout: 10_000,
      },
    );
    const subscribed = await post('/subscriptions', {
      ResourceAddress: await publisher(),
      EndpointUri: `https://localhost:${port}/events`,
      SigningSecret: secret,
    });
    expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(201);
    await vi.waitFor(() => expect(output()).toMatch(/#1 .* verified \(v1; v1a verified\)/), {
      timeout: 10_000,
    });
    expect(output()).not.toContain('REJECTED');
  });

  it("runs the README's v1a consumer as written", async () => {
    const readme = await readFile(join(process.cwd(), 'README.md'), 'utf8');
    const code = /node consumer-v1a\.mjs`:\n\n```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code, 'the v1a consumer block').toBeDefined();
    expect(code?.trim().split('\n').length).toBeLessThanOrEqual(20);
    const port = await freePort();
    const output = run(['--input-type=module', '-e', code ?? ''], {
      API: service.url,
      CONSUMER_PORT: String(port),
    });
    await vi.waitFor(() => expect(output()).toContain('verifying v1a'), { timeout: 10_000 });
    const subscribed = await post('/subscriptions', {
      ResourceAddress: await publisher(),
      EndpointUri: `http://127.0.0.1:${port}/events`,
    });
    expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(201);
    expect(output()).toContain('verified event.sync.ptp-status.ptp-state-change');
    const forged = await fetch(`http://127.0.0.1:${port}/events`, {
      method: 'POST',
      headers: {
        'webhook-id': 'x',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1a,AAAA',
      },
      body: '{}',
    });
    expect(forged.status).toBe(401);
  });

  it('refuses to subscribe an endpoint whose certificate no trusted CA signed, saying tls: unknown ca', async () => {
    const untrusted = issue(makeCa('a CA npm start does not trust'), 'endpoint', 'server');
    const server = https.createServer({ cert: untrusted.cert, key: untrusted.key }, (_req, res) =>
      res.writeHead(204).end(),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const subscribed = await post('/subscriptions', {
        ResourceAddress: await publisher(),
        EndpointUri: `https://127.0.0.1:${(server.address() as AddressInfo).port}/events`,
      });
      expect(subscribed.status).toBe(400);
      expect(subscribed.body.detail).toContain('tls: unknown ca');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
