/**
 * `npm start` takes the service's settings from the shell, as the README's configuration table
 * says: both a setting serverless.yml also sets (DELIVERY_RETRY_WINDOW_SECONDS) and one it does
 * not (EVENT_TIME_TOLERANCE_MS) reach the handlers of serverless offline. A DynamoDB Local of its
 * own keeps this file's publishers out of the other end-to-end file's table-wide checks.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureTable, startDynamoDbLocal } from '../../scripts/dynamodb-local.mjs';
import { type Offline, startOffline } from '../../scripts/offline.mjs';
import { lockStateEvent, uniqueCluster } from '../support/fixtures';

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
    const published = await post(`/publishers/${publisher.body.SubscriptionId}/events`, lockStateEvent({ node, time }));
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
