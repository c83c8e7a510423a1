import { describe, expect, it } from 'vitest';
import { lockStateEvent } from '../support/fixtures';

/**
 * A deployed stage: the producer is the IAM caller (the producer routes' authoriser) and is held
 * to its grants; X-Producer-Id means nothing there. The stage is read once at start-up, so this
 * file sets it before importing any handler.
 */
process.env.STAGE = 'prod';
process.env.CONSUMER_AUTH = 'iam';
const { api, expectJson, expectProblem, freshNode, LOCK_STATE } = await import('../support/api');
const { producerGrants } = await import('../../lib/services');
// The accepted event goes to the fan-out queue.
const { useQueuedDelivery } = await import('../support/queued-delivery');
useQueuedDelivery();
const { httpApiEvent, invoke } = await import('../support/http-event');
const { handler: createPublisher } = await import('../../functions/http/create-publisher');
const { handler: publishEvent } = await import('../../functions/http/publish-event');

const NODE_A = 'arn:aws:sts::123456789012:assumed-role/ocloud-node-agent/node-a';
const NODE_B = 'arn:aws:sts::123456789012:assumed-role/ocloud-node-agent/node-b';
const caller = (userArn: string) => ({ iam: { userArn, accountId: '123456789012' } });

function register(address: string, authorizer?: unknown, headers?: Record<string, string>) {
  return invoke(
    createPublisher,
    httpApiEvent({
      method: 'POST',
      path: '/publishers',
      body: { ResourceAddress: address },
      authorizer,
      ...(headers ? { headers } : {}),
    }),
  );
}

describe('producer grants on a deployed stage (IAM callers)', () => {
  it('refuses an ungranted caller with the command for this stage, whatever X-Producer-Id says', async () => {
    const address = `${freshNode()}${LOCK_STATE}`;
    const refused = expectProblem(await register(address, caller(NODE_A), { 'x-producer-id': 'x' }), 403);
    expect(refused.detail).toBe(
      `Producer ${NODE_A} holds no grant for ${address} (it holds no grant); an operator grants it with: npm run grants -- --stage prod add '${NODE_A}' ${address}`,
    );
  });

  it('registers for a granted caller, and only that caller may publish through it', async () => {
    const node = freshNode();
    await producerGrants().addGrant(NODE_A, node);
    await producerGrants().addGrant(NODE_B, node);
    const created = await register(`${node}${LOCK_STATE}`, caller(NODE_A));
    const id = expectJson<{ SubscriptionId: string }>(created, 201).SubscriptionId;
    const publish = (userArn: string) =>
      invoke(
        publishEvent,
        httpApiEvent({
          method: 'POST',
          path: `/publishers/${id}/events`,
          routeKey: 'POST /api/ocloudNotifications/v2/publishers/{publisherId}/events',
          pathParameters: { publisherId: id },
          body: lockStateEvent({ node }),
          authorizer: caller(userArn),
        }),
      );
    expectProblem(await publish(NODE_B), 403, `(you are ${NODE_B};`);
    expect((await publish(NODE_A)).status).toBe(202);
  });

  it('a request without an authenticated caller is 401', async () => {
    expectProblem(await api.createPublisher({ ResourceAddress: `${freshNode()}${LOCK_STATE}` }), 401);
  });
});
