/**
 * Issue 41 through `npm start`: producer grants (`npm run grants` against the running stage),
 * unnamed and named producers, two producers on one address, a publisher over its rate and a
 * quota reached, an endpoint suspended by the breaker and resumed, as a user meets them over HTTP. Small limits are passed as a user would
 * (`PUBLISHER_EVENT_RATE=… npm start`).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../scripts/dynamodb-local';
import { lockStateEvent, uniqueCluster } from '../support/fixtures';
import { type NpmStart, startNpmStart } from '../support/npm-start';

const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;
let service: NpmStart | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ocloud-limits-'));
  service = await startNpmStart(dir, await freePort(), {
    PUBLISHER_EVENT_RATE: '0.2',
    PUBLISHER_EVENT_BURST: '3',
    PUBLISHERS_PER_PRODUCER: '2',
    ENDPOINT_SUSPEND_AFTER_SECONDS: '1',
  });
}, 160_000);

afterAll(async () => {
  await service?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, options: { body?: unknown; producer?: string } = {}) {
  const response = await fetch(`${service?.url}${path}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.producer ? { 'x-producer-id': options.producer } : {}),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** `npm run grants -- …` against the running npm start (its data folder, as the user's shell has it). */
async function grants(...args: string[]) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'scripts/grants.ts', ...args],
    {
      cwd: PROJECT_DIR,
      env: { ...process.env, LOCAL_DYNAMODB_DIR: join(dir, 'dynamodb') },
    },
  );
  return stdout;
}

const LOCK = '/sync/ptp-status/lock-state';

describe('producer grants, owners, rates and quotas through npm start', () => {
  it('the unnamed producer registers and publishes anywhere, as before', async () => {
    const node = `/${uniqueCluster()}/site-1/node-1`;
    const created = await call('POST', '/publishers', { body: { ResourceAddress: `${node}${LOCK}` } });
    expect(created.status).toBe(201);
    expect(
      (
        await call('POST', `/publishers/${created.body.SubscriptionId}/events`, {
          body: lockStateEvent({ node }),
        })
      ).status,
    ).toBe(202);
  });

  it('a named producer is held to its grants; npm run grants gives one; another principal cannot use its publisher', async () => {
    const node = `/${uniqueCluster()}/site-1/node-1`;
    const refused = await call('POST', '/publishers', {
      body: { ResourceAddress: `${node}${LOCK}` },
      producer: 'node-a',
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    const command = `npm run grants -- add 'local:node-a' ${node}${LOCK}`;
    expect(refused.body.detail).toContain(command);

    expect(await grants('add', 'local:node-a', node)).toContain(
      `granted local:node-a ${node} on stage local`,
    );
    expect(await grants('add', 'local:node-b', node)).toContain('granted local:node-b');
    expect(await grants('list')).toContain(`local:node-a\t${node}`);

    const created = await call('POST', '/publishers', {
      body: { ResourceAddress: `${node}${LOCK}` },
      producer: 'node-a',
    });
    expect(created.status).toBe(201);
    const id = created.body.SubscriptionId;
    // Two producers on one address: the other, though granted, may not publish, delete or register over it.
    const other = await call('POST', `/publishers/${id}/events`, {
      body: lockStateEvent({ node }),
      producer: 'node-b',
    });
    expect(other.status).toBe(403);
    expect(other.body.detail).toContain(
      'only the principal that registered a publisher may publish through it',
    );
    expect((await call('DELETE', `/publishers/${id}`, { producer: 'node-b' })).status).toBe(403);
    expect(
      (await call('POST', '/publishers', { body: { ResourceAddress: `${node}${LOCK}` }, producer: 'node-b' }))
        .status,
    ).toBe(403);
    expect(
      (await call('POST', `/publishers/${id}/events`, { body: lockStateEvent({ node }), producer: 'node-a' }))
        .status,
    ).toBe(202);
  });

  it('a publisher over its rate gets 429 with Retry-After; a producer over its quota of publishers gets 403 naming it', async () => {
    const node = `/${uniqueCluster()}/site-1/node-1`;
    await grants('add', 'local:node-c', node);
    const created = await call('POST', '/publishers', {
      body: { ResourceAddress: `${node}${LOCK}` },
      producer: 'node-c',
    });
    const id = created.body.SubscriptionId;
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 4; i++) {
      last = await call('POST', `/publishers/${id}/events`, {
        body: lockStateEvent({ node }),
        producer: 'node-c',
      });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([202, 202, 202, 429]);
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(last?.body.detail).toContain('over its rate of 0.2 events a second (bursts of 3)');

    expect(
      (
        await call('POST', '/publishers', {
          body: { ResourceAddress: `${node}/sync/ptp-status/clock-class` },
          producer: 'node-c',
        })
      ).status,
    ).toBe(201);
    const over = await call('POST', '/publishers', {
      body: { ResourceAddress: `${node}/sync/sync-status/sync-state` },
      producer: 'node-c',
    });
    expect(over.status).toBe(403);
    expect(over.body.detail).toContain('the quota of publishers per producer principal is 2');
    expect(over.body.detail).toContain('--param="publishersPerProducer=<n>"');
  });
});

describe('the breaker through npm start', () => {
  it('suspends an endpoint whose every attempt failed for the suspension time (1 s here); a redrive resumes it', async () => {
    const consumer = { status: 204, received: 0 };
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        consumer.received += 1;
        res.writeHead(consumer.status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
      const node = `/${uniqueCluster()}/site-1/node-1`;
      const created = await call('POST', '/publishers', { body: { ResourceAddress: `${node}${LOCK}` } });
      const subscribed = await call('POST', '/subscriptions', {
        body: { ResourceAddress: node, EndpointUri: url },
      });
      expect(subscribed.status).toBe(201);
      const id = subscribed.body.SubscriptionId;
      consumer.status = 503;
      const publish = (value: 'LOCKED' | 'FREERUN', seconds: number) =>
        call('POST', `/publishers/${created.body.SubscriptionId}/events`, {
          body: lockStateEvent({ node, value, time: new Date(Date.now() + seconds * 1000).toISOString() }),
        });
      expect((await publish('FREERUN', 0)).status).toBe(202);
      await vi.waitFor(
        async () => {
          const deliveries = await call('GET', `/subscriptions/${id}/deliveries`);
          expect(deliveries.body[0]?.EndpointSuspended?.Reason).toContain('endpoint suspended');
        },
        { timeout: 30_000, interval: 500 },
      );
      const letters = await call('GET', `/subscriptions/${id}/dead-letters`);
      expect(letters.body[0]?.Reason).toMatch(/^endpoint suspended since /);
      // Suspended: a new event is not attempted.
      const tried = consumer.received;
      expect((await publish('LOCKED', 1)).status).toBe(202);
      await vi.waitFor(
        async () => expect((await call('GET', `/subscriptions/${id}/dead-letters`)).body).toHaveLength(2),
        {
          timeout: 15_000,
          interval: 300,
        },
      );
      expect(consumer.received).toBe(tried);
      // Back, and redriven: resumed; the newest missed state arrives.
      consumer.status = 204;
      expect((await call('POST', `/subscriptions/${id}/dead-letters/redrive`)).status).toBe(200);
      await vi.waitFor(() => expect(consumer.received).toBe(tried + 1), { timeout: 15_000, interval: 200 });
      const deliveries = await call('GET', `/subscriptions/${id}/deliveries`);
      expect(deliveries.body[0]?.EndpointSuspended).toBeUndefined();
    } finally {
      server.close();
    }
  }, 90_000);
});
