import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueCluster } from '../support/fixtures';
import { httpApiEvent, invoke } from '../support/http-event';
import { SINK } from '../support/sink';

/**
 * With consumer authentication on, a subscription belongs to the principal that created it.
 * The setting is read once at start-up, so this file sets it before importing any handler.
 */
process.env.CONSUMER_AUTH = 'iam';
const { registerPublisher } = await import('../support/api');
// Delete-all hands the removal of what it retired to the clean-up queue.
const { useQueuedDelivery } = await import('../support/queued-delivery');
useQueuedDelivery();
const { handler: createSubscription } = await import('../../functions/http/create-subscription');
const { handler: listSubscriptions } = await import('../../functions/http/list-subscriptions');
const { handler: getSubscription } = await import('../../functions/http/get-subscription');
const { handler: deleteSubscription } = await import('../../functions/http/delete-subscription');
const { handler: deleteAllSubscriptions } = await import('../../functions/http/delete-all-subscriptions');
const { handler: listDeliveries } = await import('../../functions/http/list-deliveries');
const { handler: listDeadLetters } = await import('../../functions/http/list-dead-letters');
const { handler: redriveDeadLetters } = await import('../../functions/http/redrive-dead-letters');

const ALICE = 'arn:aws:sts::123456789012:assumed-role/vdu-a/alice';
const BOB = 'arn:aws:sts::123456789012:assumed-role/vdu-b/bob';
const as = (userArn: string) => ({ iam: { userArn, accountId: '123456789012' } });

let address: string;

beforeAll(async () => {
  address = `/${uniqueCluster()}/site-1/node-1/sync`;
  await registerPublisher(`${address}/ptp-status/lock-state`);
});

async function subscribe(principal: string, endpoint: string) {
  return invoke(
    createSubscription,
    httpApiEvent({
      method: 'POST',
      path: '/subscriptions',
      body: { ResourceAddress: address, EndpointUri: endpoint },
      authorizer: as(principal),
    }),
  );
}

const idOf = (response: { body: unknown }) => (response.body as { SubscriptionId: string }).SubscriptionId;

async function list(principal: string): Promise<string[]> {
  const response = await invoke(
    listSubscriptions,
    httpApiEvent({ method: 'GET', path: '/subscriptions', authorizer: as(principal) }),
  );
  expect(response.status).toBe(200);
  return (response.body as { SubscriptionId: string }[]).map((s) => s.SubscriptionId).sort();
}

describe('subscriptions belong to the principal that created them', () => {
  it('lists, gets and deletes only the caller’s own subscriptions; another principal’s id is 404', async () => {
    const alice = idOf(await subscribe(ALICE, `${SINK}/alice`));
    const bob = idOf(await subscribe(BOB, `${SINK}/bob`));

    expect(await list(ALICE)).toEqual([alice]);
    expect(await list(BOB)).toEqual([bob]);

    const aliceReadsBob = await invoke(
      getSubscription,
      httpApiEvent({
        method: 'GET',
        path: `/subscriptions/${bob}`,
        pathParameters: { subscriptionId: bob },
        authorizer: as(ALICE),
      }),
    );
    expect(aliceReadsBob.status).toBe(404);
    expect(aliceReadsBob.headers['content-type']).toBe('application/problem+json');

    const aliceDeletesBob = await invoke(
      deleteSubscription,
      httpApiEvent({
        method: 'DELETE',
        path: `/subscriptions/${bob}`,
        pathParameters: { subscriptionId: bob },
        authorizer: as(ALICE),
      }),
    );
    expect(aliceDeletesBob.status).toBe(404);
    expect(await list(BOB)).toEqual([bob]);

    // Bob's deliveries and dead letters are his alone, and so is their redrive.
    for (const [handler, method, suffix] of [
      [listDeliveries, 'GET', 'deliveries'],
      [listDeadLetters, 'GET', 'dead-letters'],
      [redriveDeadLetters, 'POST', 'dead-letters/redrive'],
    ] as const) {
      const event = (principal: string) =>
        httpApiEvent({
          method,
          path: `/subscriptions/${bob}/${suffix}`,
          pathParameters: { subscriptionId: bob },
          authorizer: as(principal),
        });
      const aliceAsks = await invoke(handler, event(ALICE));
      expect(aliceAsks.status, suffix).toBe(404);
      expect(aliceAsks.headers['content-type']).toBe('application/problem+json');
      expect((await invoke(handler, event(BOB))).status, suffix).toBe(200);
    }

    const bobReadsBob = await invoke(
      getSubscription,
      httpApiEvent({
        method: 'GET',
        path: `/subscriptions/${bob}`,
        pathParameters: { subscriptionId: bob },
        authorizer: as(BOB),
      }),
    );
    expect(bobReadsBob.status).toBe(200);
  });

  it('lets two principals subscribe the same endpoint to the same address without a 409', async () => {
    const endpoint = `${SINK}/shared`;
    expect((await subscribe(ALICE, endpoint)).status).toBe(201);
    expect((await subscribe(BOB, endpoint)).status).toBe(201);
    expect((await subscribe(ALICE, endpoint)).status).toBe(409);
  });

  it('deletes all of the caller’s subscriptions and none of anyone else’s', async () => {
    const carol = 'arn:aws:iam::123456789012:user/carol';
    const dave = 'arn:aws:iam::123456789012:user/dave';
    await subscribe(carol, `${SINK}/carol-1`);
    await subscribe(carol, `${SINK}/carol-2`);
    const daves = idOf(await subscribe(dave, `${SINK}/dave`));

    const response = await invoke(
      deleteAllSubscriptions,
      httpApiEvent({ method: 'DELETE', path: '/subscriptions', authorizer: as(carol) }),
    );
    expect(response.status).toBe(204);
    expect(await list(carol)).toEqual([]);
    expect(await list(dave)).toEqual([daves]);
  });

  it('ignores X-Consumer-Id: with authentication on, the authoriser alone says who calls', async () => {
    const grace = 'arn:aws:iam::123456789012:user/grace';
    const graces = idOf(await subscribe(grace, `${SINK}/grace`));
    const claimed = await invoke(
      listSubscriptions,
      httpApiEvent({
        method: 'GET',
        path: '/subscriptions',
        headers: { 'x-consumer-id': 'someone-else' },
        authorizer: as(grace),
      }),
    );
    expect((claimed.body as { SubscriptionId: string }[]).map((s) => s.SubscriptionId)).toEqual([graces]);
    const unauthenticated = await invoke(
      listSubscriptions,
      httpApiEvent({ method: 'GET', path: '/subscriptions', headers: { 'x-consumer-id': 'grace' } }),
    );
    expect(unauthenticated.status).toBe(401);
  });

  it('answers 401 when the authoriser established no principal', async () => {
    const response = await invoke(listSubscriptions, httpApiEvent({ method: 'GET', path: '/subscriptions' }));
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ type: 'about:blank', title: 'Unauthorized', status: 401 });
  });
});

describe('list cursors belong to the principal they were issued to', () => {
  it("a cursor of Erin's list, replayed by Frank, is a 400 naming cursor and shows none of Erin's", async () => {
    const ERIN = 'arn:aws:sts::123456789012:assumed-role/vdu-e/erin';
    const FRANK = 'arn:aws:sts::123456789012:assumed-role/vdu-f/frank';
    for (const n of [1, 2, 3]) expect((await subscribe(ERIN, `${SINK}/erin/${n}`)).status).toBe(201);
    expect((await subscribe(FRANK, `${SINK}/frank`)).status).toBe(201);
    const page = (principal: string, query: string) =>
      invoke(
        listSubscriptions,
        httpApiEvent({ method: 'GET', path: `/subscriptions${query}`, authorizer: as(principal) }),
      );
    const first = await page(ERIN, '?limit=1');
    const link = first.headers.link ?? '';
    const query = /<[^?]+(\?[^>]+)>; rel="next"/.exec(link)?.[1] ?? '';
    expect(query).toMatch(/cursor=/);

    const replayed = await page(FRANK, query);

    expect(replayed.status).toBe(400);
    expect(replayed.headers['content-type']).toBe('application/problem+json');
    expect((replayed.body as { detail: string }).detail).toMatch(/^cursor is not valid for this list/);
    expect((await page(ERIN, query)).status).toBe(200);
  });
});
