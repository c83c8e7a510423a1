/**
 * Every 4xx, whichever route raises it, is an RFC 9457 problem document with
 * `Content-Type: application/problem+json`, `type: about:blank`, the HTTP status, a title and a
 * detail that tells a person what to fix — and nothing internal.
 */
import { describe, expect, it } from 'vitest';
import { trackConsumers } from '../support/consumer';
import { lockStateEvent } from '../support/fixtures';
import {
  type ApiResponse,
  api,
  bodyOfBytes,
  expectJson,
  expectProblem,
  expectSubscribed,
  freshNode,
  lockStatePublisher,
  MAX_BODY_BYTES,
} from './api';

const startConsumer = trackConsumers();
const UNKNOWN_ID = 'f47ac10b-58cc-4372-a567-0e02b2c3d479';

interface Case {
  route: string;
  why: string;
  status: number;
  /** What the detail must mention, so a person knows what to fix. */
  names: RegExp;
  request: () => Promise<ApiResponse>;
}

const cases: Case[] = [
  {
    route: 'POST /subscriptions',
    why: 'malformed JSON',
    status: 400,
    names: /JSON/,
    request: () => api.createSubscription('{"ResourceAddress": "/a",'),
  },
  {
    route: 'POST /subscriptions',
    why: 'a bad ResourceAddress',
    status: 400,
    names: /ResourceAddress/,
    request: async () =>
      api.createSubscription({ ResourceAddress: 'no-slash', EndpointUri: (await startConsumer()).url }),
  },
  {
    route: 'POST /subscriptions',
    why: 'a bad EndpointUri',
    status: 400,
    names: /EndpointUri/,
    request: async () =>
      api.createSubscription({
        ResourceAddress: (await lockStatePublisher()).address,
        EndpointUri: 'ftp://x/y',
      }),
  },
  {
    route: 'POST /subscriptions',
    why: 'a consumer failing the sanity check',
    status: 400,
    names: /EndpointUri.*(500|2xx)/,
    request: async () =>
      api.createSubscription({
        ResourceAddress: (await lockStatePublisher()).address,
        EndpointUri: (await startConsumer([{ status: 500 }])).url,
      }),
  },
  {
    route: 'POST /subscriptions',
    why: 'no publisher',
    status: 404,
    names: /publisher/i,
    request: async () =>
      api.createSubscription({
        ResourceAddress: `${freshNode()}/sync`,
        EndpointUri: (await startConsumer()).url,
      }),
  },
  {
    route: 'POST /subscriptions',
    why: 'a duplicate',
    status: 409,
    names: /\/subscriptions\/[0-9a-f-]{36}/,
    request: async () => {
      const body = {
        ResourceAddress: (await lockStatePublisher()).address,
        EndpointUri: (await startConsumer()).url,
      };
      expectSubscribed(await api.createSubscription(body));
      return api.createSubscription(body);
    },
  },
  {
    route: 'POST /subscriptions',
    why: 'a body over 64 KiB',
    status: 413,
    names: /65536|64 ?KiB/,
    request: () => api.createSubscription(bodyOfBytes({}, MAX_BODY_BYTES + 1)),
  },
  {
    route: 'GET /subscriptions',
    why: 'a malformed filter',
    status: 400,
    names: /ResourceAddress/,
    request: () => api.listSubscriptions('?ResourceAddress=%2Fa%2F*'),
  },
  {
    route: 'GET /subscriptions/{id}',
    why: 'an unknown id',
    status: 404,
    names: new RegExp(UNKNOWN_ID),
    request: () => api.getSubscription(UNKNOWN_ID),
  },
  {
    route: 'DELETE /subscriptions/{id}',
    why: 'an unknown id',
    status: 404,
    names: new RegExp(UNKNOWN_ID),
    request: () => api.deleteSubscription(UNKNOWN_ID),
  },
  {
    route: 'GET /{ResourceAddress}/CurrentState',
    why: 'no publisher',
    status: 404,
    names: /cluster-/,
    request: () => api.currentState(`${freshNode()}/sync/ptp-status/lock-state`),
  },
  {
    route: 'GET /{ResourceAddress}/CurrentState',
    why: 'a malformed address',
    status: 400,
    names: /\.\./,
    request: () => api.getPath(`${freshNode()}/../x/CurrentState`),
  },
  {
    route: 'GET /{proxy+}',
    why: 'a path that is not a CurrentState path',
    status: 404,
    names: /CurrentState/,
    request: () => api.getPath('/nothing/here'),
  },
  {
    route: 'POST /publishers',
    why: 'malformed JSON',
    status: 400,
    names: /JSON/,
    request: () => api.createPublisher('not json'),
  },
  {
    route: 'POST /publishers',
    why: 'a wildcard address',
    status: 400,
    names: /wildcard/i,
    request: () => api.createPublisher({ ResourceAddress: `${freshNode()}/*` }),
  },
  {
    route: 'POST /publishers',
    why: 'a duplicate address',
    status: 409,
    names: /\/publishers\/[0-9a-f-]{36}/,
    request: async () => api.createPublisher({ ResourceAddress: (await lockStatePublisher()).address }),
  },
  {
    route: 'POST /publishers',
    why: 'a body over 64 KiB',
    status: 413,
    names: /65536|64 ?KiB/,
    request: () => api.createPublisher(bodyOfBytes({}, MAX_BODY_BYTES + 1)),
  },
  {
    route: 'GET /publishers/{id}',
    why: 'an unknown id',
    status: 404,
    names: new RegExp(UNKNOWN_ID),
    request: () => api.getPublisher(UNKNOWN_ID),
  },
  {
    route: 'DELETE /publishers/{id}',
    why: 'an unknown id',
    status: 404,
    names: new RegExp(UNKNOWN_ID),
    request: () => api.deletePublisher(UNKNOWN_ID),
  },
  {
    route: 'POST /publishers/{id}/events',
    why: 'an unknown publisher',
    status: 404,
    names: new RegExp(UNKNOWN_ID),
    request: () => api.publish(UNKNOWN_ID, lockStateEvent({ node: freshNode() })),
  },
  {
    route: 'POST /publishers/{id}/events',
    why: 'an invalid event',
    status: 400,
    names: /specversion/,
    request: async () => {
      const { publisherId, node } = await lockStatePublisher({ withState: false });
      return api.publish(publisherId, { ...lockStateEvent({ node }), specversion: '0.3' });
    },
  },
  {
    route: 'POST /publishers/{id}/events',
    why: 'malformed JSON',
    status: 400,
    names: /JSON/,
    request: async () => api.publish((await lockStatePublisher({ withState: false })).publisherId, '{'),
  },
  {
    route: 'POST /publishers/{id}/events',
    why: 'a body over 64 KiB',
    status: 413,
    names: /65536|64 ?KiB/,
    request: async () =>
      api.publish(
        (await lockStatePublisher({ withState: false })).publisherId,
        bodyOfBytes({}, MAX_BODY_BYTES + 1),
      ),
  },
];

describe('every 4xx is a problem document', () => {
  it.each(cases)('$route, $why → $status', async ({ status, names, request }) => {
    const response = await request();

    expectProblem(response, status, names);
    expect(response.headers['content-type']).toBe('application/problem+json');
    if (status === 409) expect(response.headers.location).toMatch(/^https:\/\/notify\.example\.com\//);
    else expect(response.headers.location).toBeUndefined();
  });

  it('a malformed JSON body does not echo the parser message or the input', async () => {
    const response = await api.createSubscription('{"ResourceAddress": <script>');
    const problem = expectProblem(response, 400);
    expect(problem.detail).not.toContain('<script>');
    expect(problem.detail).not.toMatch(/Unexpected token|position \d+/);
  });

  it('a 413 is decided before the body is parsed (an oversized malformed body is 413, not 400)', async () => {
    const body = `{${'x'.repeat(MAX_BODY_BYTES)}`;
    expectProblem(await api.createSubscription(body), 413);
    expectProblem(await api.createPublisher(body), 413);
  });

  it('a 413 carries no Location and creates nothing', async () => {
    const { address } = await lockStatePublisher({ withState: false });
    const consumer = await startConsumer();
    const response = await api.createSubscription(
      bodyOfBytes({ ResourceAddress: address, EndpointUri: consumer.url }, MAX_BODY_BYTES + 100),
    );
    expectProblem(response, 413);
    expect(response.headers.location).toBeUndefined();
    expect(
      expectJson(await api.listSubscriptions(`?ResourceAddress=${encodeURIComponent(address)}`), 200),
    ).toEqual([]);
  });
});
