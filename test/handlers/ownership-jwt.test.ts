import { describe, expect, it } from 'vitest';
import { uniqueCluster } from '../support/fixtures';
import { httpApiEvent, invoke } from '../support/http-event';
import { SINK } from '../support/sink';

/** With JWT consumer authentication, the principal is the token's issuer and subject. */
process.env.CONSUMER_AUTH = 'jwt';
const { registerPublisher } = await import('../support/api');
const { handler: createSubscription } = await import('../../functions/http/create-subscription');
const { handler: getSubscription } = await import('../../functions/http/get-subscription');

const token = (iss: string, sub: string) => ({ jwt: { claims: { iss, sub }, scopes: [] } });

describe('JWT principals', () => {
  it('separates the same subject from two issuers', async () => {
    const address = `/${uniqueCluster()}/site-1/node-1/sync`;
    await registerPublisher(`${address}/ptp-status/lock-state`);
    const created = await invoke(
      createSubscription,
      httpApiEvent({
        method: 'POST',
        path: '/subscriptions',
        body: { ResourceAddress: address, EndpointUri: `${SINK}/events` },
        authorizer: token('https://issuer-a.example.com/', 'vdu-7'),
      }),
    );
    expect(created.status).toBe(201);
    const id = (created.body as { SubscriptionId: string }).SubscriptionId;
    const get = (authorizer: unknown) =>
      invoke(
        getSubscription,
        httpApiEvent({
          method: 'GET',
          path: `/subscriptions/${id}`,
          pathParameters: { subscriptionId: id },
          authorizer,
        }),
      );

    expect((await get(token('https://issuer-a.example.com/', 'vdu-7'))).status).toBe(200);
    expect((await get(token('https://issuer-b.example.com/', 'vdu-7'))).status).toBe(404);
    expect((await get(token('https://issuer-a.example.com/', 'vdu-8'))).status).toBe(404);
    expect((await get(undefined)).status).toBe(401);
  });
});
