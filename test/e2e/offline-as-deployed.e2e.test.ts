/**
 * `serverless offline` answers as the deployed HTTP API does where serverless-offline 14 and hapi
 * would not by themselves (scripts/offline-hapi.cjs says why each differs, with the upstream
 * issue): a trailing slash is kept, nothing is compressed, a 204 has no Content-Type, and a
 * function that cannot be loaded answers a 500 problem document, not a 200. Each case fails with
 * offline's own behaviour (the preload left out of scripts/offline.ts). hapi's own refusals
 * (bad percent-encoding, Content-Type, sizes) are in local-run.e2e.test.ts.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, startDynamoDbLocal } from '../../scripts/dynamodb-local';
import { type Offline, startOffline } from '../../scripts/offline';
import { type Consumer, startConsumer } from '../support/consumer';
import { uniqueCluster } from '../support/fixtures';
import { type RawAnswer, rawRequest } from '../support/raw-http';

const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url));

let db: Awaited<ReturnType<typeof startDynamoDbLocal>>;
let api: Offline;
let consumer: Consumer;

beforeAll(async () => {
  db = await startDynamoDbLocal({ inMemory: true, quiet: true });
  await ensureTable({ endpoint: db.endpoint, tableName: 'ocloud-notifications-local' });
  api = await startOffline({ dynamoEndpoint: db.endpoint, quiet: true });
  consumer = await startConsumer();
});

afterAll(async () => {
  await consumer?.close();
  await api?.stop();
  await db?.stop();
});

/** One request exactly as written, under the API's base path (fetch would decompress). */
function send(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  return rawRequest(api.port, method, `${new URL(api.url).pathname}${path}`, headers, body);
}

async function created(path: string, body: unknown): Promise<string> {
  const answer = await send('POST', path, { 'content-type': 'application/json' }, JSON.stringify(body));
  expect(answer.status, answer.body).toBe(201);
  return String(JSON.parse(answer.body).SubscriptionId);
}

/** A publisher and a subscription to it; the subscription's id. */
async function subscribe(): Promise<string> {
  const ResourceAddress = `/${uniqueCluster()}/site-1/node-1/sync/ptp-status/lock-state`;
  await created('/publishers', { ResourceAddress });
  return created('/subscriptions', { ResourceAddress, EndpointUri: consumer.url });
}

function expectProblem(answer: RawAnswer, status: number): Record<string, unknown> {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['content-type']).toBe('application/problem+json');
  const document = JSON.parse(answer.body);
  expect(document).toMatchObject({ type: 'about:blank', status });
  return document;
}

describe('serverless offline answers as the deployed HTTP API', () => {
  it('keeps a trailing slash: DELETE …/subscriptions/ is a 404, not delete-all', async () => {
    const id = await subscribe();
    expectProblem(await send('DELETE', '/subscriptions/'), 404);
    expect((await send('GET', `/subscriptions/${id}`)).status).toBe(200);
  });

  it('does not compress, whatever the client accepts', async () => {
    // Large enough for hapi to compress it (over its 1 KiB minimum).
    const answer = await send('GET', '/openapi.json', { 'accept-encoding': 'gzip, deflate, br' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.body.length).toBeGreaterThan(1024);
    expect(JSON.parse(answer.body)).toHaveProperty('openapi');
  });

  it('sends a 204 without Content-Type or content', async () => {
    const id = await subscribe();
    const answer = await send('DELETE', `/subscriptions/${id}`);
    expect(answer.status).toBe(204);
    expect(answer.headers['content-type']).toBeUndefined();
    expect(answer.body).toBe('');
  });

  // Last: it breaks the server on purpose. getPublisher has not run yet, so its bundle is loaded
  // at this request, and it is gone.
  it('a function that cannot be loaded answers a 500 problem document, not a 200', async () => {
    const bundles = join(PROJECT_DIR, '.esbuild-local', String(api.port));
    const files = await readdir(bundles, { recursive: true });
    const getPublisher = files.filter((file) => /get-publisher\.[cm]?js$/.test(file));
    expect(getPublisher.length, files.join('\n')).toBeGreaterThan(0);
    for (const file of getPublisher) await rm(join(bundles, file));

    const document = expectProblem(await send('GET', '/publishers/no-such-publisher'), 500);
    expect(document.title).toBe('Internal Server Error');
    expect(String(document.detail)).toContain('npm start console');
  });
});
