import { describe, expect, it } from 'vitest';

/**
 * Quotas (docs/security.md): subscriptions per owner and publishers per producer principal. Read
 * when first used, so this file sets small ones before importing any handler.
 */
process.env.SUBSCRIPTIONS_PER_OWNER = '2';
process.env.PUBLISHERS_PER_PRODUCER = '2';
const { api, expectJson, expectProblem, freshNode, LOCK_STATE, registerPublisher } = await import(
  '../support/api'
);
const { producerGrants } = await import('../../lib/services');
const { captureEmf, metricValues } = await import('../support/emf');
const { SINK } = await import('../support/sink');

const consumer = (name: string) => ({ headers: { 'x-consumer-id': name } });
const producer = (name: string) => ({ headers: { 'x-producer-id': name } });

describe('the quota of subscriptions per owner', () => {
  it('refuses the owner’s subscription over its quota with a 403 naming the quota, its value and the parameter; counted', async () => {
    const node = freshNode();
    await registerPublisher(`${node}${LOCK_STATE}`);
    const subscribe = (owner: string, path: string) =>
      api.createSubscription({ ResourceAddress: node, EndpointUri: `${SINK}/${path}` }, consumer(owner));
    const first = expectJson<{ SubscriptionId: string }>(await subscribe('quota-owner', 'a'), 201);
    expect((await subscribe('quota-owner', 'b')).status).toBe(201);

    let refused: Awaited<ReturnType<typeof subscribe>> | undefined;
    const emf = await captureEmf(async () => {
      refused = await subscribe('quota-owner', 'c');
    });
    if (!refused) throw new Error('no response');
    expect(expectProblem(refused, 403).detail).toBe(
      'Owner local:quota-owner has 2 subscriptions: the quota of subscriptions per owner is 2. Delete one first, or have the operator raise the quota (the stage parameter subscriptionsPerOwner: --param="subscriptionsPerOwner=<n>"; locally SUBSCRIPTIONS_PER_OWNER=<n> npm start)',
    );
    expect(metricValues(emf, 'QuotaRefusals').map((m) => m.value)).toEqual([1]);

    // A repeat of an existing one is still the 409 that names it; another owner has its own quota.
    expectProblem(await subscribe('quota-owner', 'a'), 409);
    expect((await subscribe('another-owner', 'c')).status).toBe(201);
    // One deleted makes room again.
    const deleted = await api.deleteSubscription(first.SubscriptionId, consumer('quota-owner'));
    expect(deleted.status).toBe(204);
    expect((await subscribe('quota-owner', 'c')).status).toBe(201);
  });
});

describe('the quota of publishers per producer principal', () => {
  it('refuses the producer’s publisher over its quota with a 403 naming it; a deleted one makes room', async () => {
    const node = freshNode();
    await producerGrants().addGrant('local:quota-producer', node);
    const register = (resource: string) =>
      api.createPublisher({ ResourceAddress: `${node}${resource}` }, producer('quota-producer'));
    const first = expectJson<{ SubscriptionId: string }>(await register(LOCK_STATE), 201);
    expect((await register('/sync/ptp-status/clock-class')).status).toBe(201);

    const refused = expectProblem(await register('/sync/sync-status/sync-state'), 403);
    expect(refused.detail).toBe(
      'Producer local:quota-producer has registered 2 publishers: the quota of publishers per producer principal is 2. Delete one first, or have the operator raise the quota (the stage parameter publishersPerProducer: --param="publishersPerProducer=<n>"; locally PUBLISHERS_PER_PRODUCER=<n> npm start)',
    );
    // Over its quota, a registration over its own publisher is still the 409.
    expectProblem(await register(LOCK_STATE), 409);

    expect((await api.deletePublisher(first.SubscriptionId, producer('quota-producer'))).status).toBe(204);
    expect((await register('/sync/sync-status/sync-state')).status).toBe(201);
  });

  it('does not count the local stage’s unnamed producer', async () => {
    const node = freshNode();
    for (const resource of [LOCK_STATE, '/sync/ptp-status/clock-class', '/sync/sync-status/sync-state']) {
      expect((await api.createPublisher({ ResourceAddress: `${node}${resource}` })).status).toBe(201);
    }
  });
});
