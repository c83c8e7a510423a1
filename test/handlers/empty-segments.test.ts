/**
 * A trailing or doubled slash never turns a request into another one. Routers forgive a trailing
 * slash (serverless offline, and API Gateway, route `…/subscriptions/` as `…/subscriptions`), so a
 * script whose id variable is empty (`curl -X DELETE $B/subscriptions/$ID`) reached delete-all.
 * Every route's handler, and the `$default` route, answers such a path with a 404 naming the empty
 * segment, and changes nothing. (CurrentState reads an address from its path: its own rules are in
 * current-state.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ROUTE, ROUTE_HANDLERS } from '../../agent/serve/api-routes';
import { handler as health } from '../../functions/http/health';
import { ROUTES } from '../../lib/http/routes';
import { trackConsumers } from '../support/consumer';
import { httpApiEvent, invoke } from '../support/http-event';
import {
  api,
  expectJson,
  expectProblem,
  expectSubscribed,
  lockStatePublisher,
  type SubscriptionInfo,
} from './api';

const startConsumer = trackConsumers();
const ID = '3f1c7c1e-9d7a-4c55-8f0e-1b2a3c4d5e6f';
const EMPTY_SEGMENT = 'the path has an empty segment (a trailing or doubled slash)';

type Handler = Parameters<typeof invoke>[0];
/** Every route's handler as serverless.yml names it (the node serves the same table: test/agent/node-routes.test.ts). */
const HANDLERS: Record<string, unknown> = {
  ...Object.fromEntries(
    Object.entries(ROUTE_HANDLERS).filter(([key]) => key !== 'GET /{ResourceAddress}/CurrentState'),
  ),
  'GET /health': health,
};

/** `path` as the route's own handler and as the `$default` route would receive it. */
async function bothWays(method: string, route: string, path: string, body?: unknown) {
  const handler = HANDLERS[`${method} ${route}`] as Handler;
  const event = (routeKey: string) =>
    httpApiEvent({ method, path, routeKey, body, pathParameters: { subscriptionId: '', publisherId: '' } });
  return [
    await invoke(handler, event(`${method} ${route}`)),
    await invoke(DEFAULT_ROUTE as Handler, event('$default')),
  ];
}

const routes = ROUTES.filter((r) => r.path !== '/{ResourceAddress}/CurrentState');

describe('a path with an empty segment is a 404 on every route', () => {
  it('the table covers every route but CurrentState', () => {
    expect(Object.keys(HANDLERS).sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
  });

  const cases = routes.flatMap(({ method, path }) => {
    const filled = path.replace(/\{[^}]+\}/g, ID);
    const variants = [
      ['a trailing slash', `${filled}/`],
      ['a doubled slash', `/${filled}`],
      ['a doubled slash inside', filled.replace(/^(\/[^/]+)/, '$1/')],
    ];
    // The id a script forgot: `/subscriptions/$ID` with ID empty.
    if (path.includes('{')) variants.push(['an empty id', path.replace(/\{[^}]+\}/, '')]);
    return variants.map(([label, written]) => ({ method, route: path, label, written: written as string }));
  });

  it.each(cases)('$method $route with $label ($written) → 404', async ({ method, route, written }) => {
    for (const response of await bothWays(method, route, written, method === 'POST' ? {} : undefined)) {
      expectProblem(response, 404, `${method} /api/ocloudNotifications/v2${written}: ${EMPTY_SEGMENT}`);
    }
  });
});

describe('DELETE …/subscriptions/ with an empty id deletes nothing', () => {
  async function twoSubscriptions(): Promise<SubscriptionInfo[]> {
    const { address } = await lockStatePublisher({ withState: false });
    const created: SubscriptionInfo[] = [];
    for (let i = 0; i < 2; i++) {
      const consumer = await startConsumer();
      created.push(
        expectSubscribed(
          await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url }),
        ),
      );
    }
    return created;
  }

  it.each([
    ['a trailing slash', '/subscriptions/'],
    ['a doubled trailing slash', '/subscriptions//'],
    ['a doubled slash before it', '//subscriptions'],
  ])(
    'with %s (%s), on the delete-all route and on $default: 404, every subscription stays',
    async (_l, path) => {
      const created = await twoSubscriptions();
      for (const response of await bothWays('DELETE', '/subscriptions', path)) {
        expectProblem(response, 404, 'is an id missing?');
      }
      for (const { SubscriptionId } of created) {
        expectJson(await api.getSubscription(SubscriptionId), 200);
      }
      const listed = expectJson<SubscriptionInfo[]>(await api.listSubscriptions(), 200).map(
        (s) => s.SubscriptionId,
      );
      expect(listed).toEqual(expect.arrayContaining(created.map((s) => s.SubscriptionId)));
    },
  );

  it('DELETE /publishers/ is the same 404 (it was a 405 before, delete-all a 204)', async () => {
    const [, viaDefault] = await bothWays('DELETE', '/publishers/{publisherId}', '/publishers/');
    expectProblem(viaDefault as Awaited<ReturnType<typeof invoke>>, 404, EMPTY_SEGMENT);
  });

  it('the same paths without the slash still work: delete-all answers 204 for the intended call', async () => {
    await twoSubscriptions();
    const response = await api.deleteAllSubscriptions();
    expect(response.status, response.rawBody).toBe(204);
    expect(expectJson<SubscriptionInfo[]>(await api.listSubscriptions(), 200)).toEqual([]);
  });
});
