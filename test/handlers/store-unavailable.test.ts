/**
 * A store that cannot be reached gives 503 with Retry-After (a problem
 * document), never a partial write; GET /health answers 503 then.
 *
 * The handlers read their configuration and build their DynamoDB client on first use, so each
 * scenario points the environment elsewhere and imports fresh copies of the handlers.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../scripts/dynamodb-local';
import { lockStateEvent } from '../support/fixtures';
import { httpApiEvent, invoke } from '../support/http-event';
import { type ApiResponse, BASE_PATH, expectProblem, freshNode } from './api';

type Handler = Parameters<typeof invoke>[0];

async function freshHandlers() {
  vi.resetModules();
  const load = async (name: string) => (await import(`../../functions/http/${name}.ts`)).handler as Handler;
  return {
    health: await load('health'),
    createSubscription: await load('create-subscription'),
    listSubscriptions: await load('list-subscriptions'),
    getSubscription: await load('get-subscription'),
    deleteAllSubscriptions: await load('delete-all-subscriptions'),
    createPublisher: await load('create-publisher'),
    publish: await load('publish-event'),
    currentState: await load('get-current-state'),
  };
}

type Handlers = Awaited<ReturnType<typeof freshHandlers>>;

const requests: { route: string; send: (h: Handlers) => Promise<ApiResponse> }[] = [
  { route: 'GET /health', send: (h) => invoke(h.health, httpApiEvent({ method: 'GET', path: '/health' })) },
  {
    route: 'POST /subscriptions',
    send: (h) =>
      invoke(
        h.createSubscription,
        httpApiEvent({
          method: 'POST',
          path: '/subscriptions',
          body: { ResourceAddress: `${freshNode()}/sync`, EndpointUri: 'http://127.0.0.1:9/events' },
        }),
      ),
  },
  {
    route: 'GET /subscriptions',
    send: (h) => invoke(h.listSubscriptions, httpApiEvent({ method: 'GET', path: '/subscriptions' })),
  },
  {
    route: 'GET /subscriptions/{id}',
    send: (h) =>
      invoke(
        h.getSubscription,
        httpApiEvent({
          method: 'GET',
          path: '/subscriptions/f47ac10b-58cc-4372-a567-0e02b2c3d479',
          pathParameters: { subscriptionId: 'f47ac10b-58cc-4372-a567-0e02b2c3d479' },
        }),
      ),
  },
  {
    route: 'DELETE /subscriptions',
    send: (h) => invoke(h.deleteAllSubscriptions, httpApiEvent({ method: 'DELETE', path: '/subscriptions' })),
  },
  {
    route: 'POST /publishers',
    send: (h) =>
      invoke(
        h.createPublisher,
        httpApiEvent({
          method: 'POST',
          path: '/publishers',
          body: { ResourceAddress: `${freshNode()}/sync` },
        }),
      ),
  },
  {
    route: 'POST /publishers/{id}/events',
    send: (h) =>
      invoke(
        h.publish,
        httpApiEvent({
          method: 'POST',
          path: '/publishers/f47ac10b-58cc-4372-a567-0e02b2c3d479/events',
          pathParameters: { publisherId: 'f47ac10b-58cc-4372-a567-0e02b2c3d479' },
          body: lockStateEvent({ node: freshNode() }),
        }),
      ),
  },
  {
    route: 'GET /{ResourceAddress}/CurrentState',
    send: (h) =>
      invoke(
        h.currentState,
        httpApiEvent({
          method: 'GET',
          path: `${freshNode()}/sync/ptp-status/lock-state/CurrentState`,
          routeKey: `GET ${BASE_PATH}/{proxy+}`,
        }),
      ),
  },
];

const failing: http.Server[] = [];
afterAll(() => {
  for (const server of failing) server.close();
});

/** A store that answers every request with this error (by default as DynamoDB Local fails inside). */
async function failingStore(
  status = 500,
  type = 'com.amazon.coral.service#InternalFailure',
  message = 'The request processing has failed',
): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume().on('end', () => {
      res
        .writeHead(status, { 'content-type': 'application/x-amz-json-1.0' })
        .end(JSON.stringify({ __type: type, message }));
    });
  });
  failing.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

function expectUnavailable(response: ApiResponse) {
  expectProblem(response, 503);
  expect(response.headers['retry-after']).toMatch(/^\d+$/);
}

describe.each([
  {
    scenario: 'the table does not exist',
    env: async () => ({ TABLE_NAME: 'no-such-table' }),
  },
  {
    scenario: 'the store endpoint does not answer (connection refused)',
    env: async () => ({ AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${await freePort()}` }),
  },
  {
    // What DynamoDB Local answered when it failed inside; DynamoDB's own InternalServerError and
    // ServiceUnavailable are server faults too, retried by the client and then a 503.
    scenario: 'the store answers 500 InternalFailure',
    env: async () => ({ AWS_ENDPOINT_URL_DYNAMODB: await failingStore() }),
  },
  {
    // A single write (the publish's UpdateItem) that meets a transaction on its item (the
    // publisher's delete): the client does not retry it; the caller does, after Retry-After.
    scenario: 'the store answers 400 TransactionConflictException',
    env: async () => ({
      AWS_ENDPOINT_URL_DYNAMODB: await failingStore(
        400,
        'com.amazonaws.dynamodb.v20120810#TransactionConflictException',
        'Transaction is ongoing for the item',
      ),
    }),
  },
])('when $scenario', ({ env }) => {
  const saved = { ...process.env };
  let handlers: Handlers;

  beforeAll(async () => {
    // The 503s are logged as warnings by design; keep the test output readable.
    Object.assign(process.env, await env(), { LOG_LEVEL: 'error' });
    handlers = await freshHandlers();
  });

  afterAll(() => {
    for (const name of ['TABLE_NAME', 'AWS_ENDPOINT_URL_DYNAMODB', 'LOG_LEVEL'])
      process.env[name] = saved[name];
    vi.resetModules();
  });

  it.each(requests)('$route → 503 problem document with Retry-After', async ({ send }) => {
    expectUnavailable(await send(handlers));
  });
});
