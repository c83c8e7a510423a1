import { describe, expect, it } from 'vitest';
import { trackConsumers } from '../support/consumer';
import { lockStateEvent } from '../support/fixtures';
import { waitForQueueIdle } from '../support/queue-idle';
import {
  api,
  expectJson,
  expectNoContent,
  expectProblem,
  expectSubscribed,
  lockStatePublisher,
  PUBLIC_BASE,
  publishAccepted,
  type SubscriptionInfo,
} from './api';

const startConsumer = trackConsumers();

/** A publisher (no state, so no sanity POST) and one subscription to its address. */
async function subscribed(options: { address?: string; withState?: boolean } = {}) {
  const publisher = await lockStatePublisher({ withState: options.withState ?? false });
  const consumer = await startConsumer();
  const response = await api.createSubscription({
    ResourceAddress: options.address?.replace('{node}', publisher.node) ?? publisher.address,
    EndpointUri: consumer.url,
  });
  const info = expectSubscribed(response);
  return { ...publisher, consumer, info };
}

async function list(query = ''): Promise<SubscriptionInfo[]> {
  return expectJson<SubscriptionInfo[]>(await api.listSubscriptions(query), 200);
}

const byAddress = (address: string) => `?ResourceAddress=${encodeURIComponent(address)}`;

describe('GET /subscriptions', () => {
  it('answers [] (never null) when there are none', async () => {
    expectNoContent(await api.deleteAllSubscriptions());

    const response = await api.listSubscriptions();

    expect(expectJson(response, 200)).toEqual([]);
    expect(response.rawBody).toBe('[]');
  });

  it('answers an array of SubscriptionInfo with exactly the four members', async () => {
    const { info } = await subscribed();

    const all = await list();

    expect(all).toContainEqual(info);
    for (const item of all) {
      expect(Object.keys(item).sort()).toEqual([
        'EndpointUri',
        'ResourceAddress',
        'SubscriptionId',
        'UriLocation',
      ]);
      expect(item.UriLocation).toBe(`${PUBLIC_BASE}/subscriptions/${item.SubscriptionId}`);
    }
  });

  it('filters on ?ResourceAddress= to exactly that address (not the addresses under it)', async () => {
    const exact = await subscribed();
    const above = expectSubscribed(
      await api.createSubscription({
        ResourceAddress: `${exact.node}/sync`,
        EndpointUri: exact.consumer.url,
      }),
    );

    expect(await list(byAddress(exact.address))).toEqual([exact.info]);
    expect(await list(byAddress(`${exact.node}/sync`))).toEqual([above]);
    expect(await list(byAddress(exact.node))).toEqual([]);
  });

  it('normalises a trailing slash in the filter', async () => {
    const { address, info } = await subscribed();
    expect(await list(byAddress(`${address}/`))).toEqual([info]);
  });

  it('answers [] for a well-formed address nobody subscribed to', async () => {
    const { node } = await subscribed();
    const response = await api.listSubscriptions(byAddress(`${node}/sync/gnss-status/gnss-sync-status`));
    expect(expectJson(response, 200)).toEqual([]);
    expect(response.rawBody).toBe('[]');
  });

  it.each([
    { label: 'a wildcard', value: '/cluster-x/*' },
    { label: 'no leading slash', value: 'cluster-x/site-1' },
    { label: 'a ".." segment', value: '/cluster-x/../site-1' },
    { label: 'an empty segment', value: '/cluster-x//site-1' },
    { label: 'a space', value: '/cluster x' },
    { label: 'an empty value', value: '' },
  ])('a malformed filter ($label) → 400 naming ResourceAddress', async ({ value }) => {
    expectProblem(
      await api.listSubscriptions(`?ResourceAddress=${encodeURIComponent(value)}`),
      400,
      'ResourceAddress',
    );
  });

  it('ignores other query parameters', async () => {
    const { address, info } = await subscribed();

    expect(await list('?offset=5&foo=bar&page=2')).toEqual(await list());
    expect(await list(`${byAddress(address)}&foo=*&EndpointUri=x`)).toEqual([info]);
  });
});

describe('GET /subscriptions/{subscriptionId}', () => {
  it('answers 200 with the SubscriptionInfo', async () => {
    const { info } = await subscribed();

    const response = await api.getSubscription(info.SubscriptionId);

    expect(expectJson(response, 200)).toEqual(info);
  });

  it.each([
    { label: 'an unknown uuid v4', id: 'f47ac10b-58cc-4372-a567-0e02b2c3d479' },
    { label: 'a path traversal', id: '../x' },
    { label: 'a percent-encoded space', id: '%20' },
    { label: 'a space', id: ' ' },
    { label: 'an empty string', id: '' },
    { label: 'a uuid in upper case', id: 'F47AC10B-58CC-4372-A567-0E02B2C3D479' },
    { label: 'a very long string', id: 'a'.repeat(1500) },
    { label: 'an over-long string (2100 characters)', id: 'x'.repeat(2100) },
  ])('answers 404 for $label', async ({ id }) => {
    expectProblem(await api.getSubscription(id), 404);
  });

  it('answers 404 for the id of a publisher', async () => {
    const { publisherId } = await lockStatePublisher({ withState: false });
    expectProblem(await api.getSubscription(publisherId), 404, publisherId);
  });
});

describe('DELETE /subscriptions/{subscriptionId}', () => {
  it('answers 204 with an empty body, then 404 for GET and for a second DELETE', async () => {
    const { info, address } = await subscribed();

    expectNoContent(await api.deleteSubscription(info.SubscriptionId));

    expectProblem(await api.getSubscription(info.SubscriptionId), 404, info.SubscriptionId);
    expectProblem(await api.deleteSubscription(info.SubscriptionId), 404, info.SubscriptionId);
    expect(await list(byAddress(address))).toEqual([]);
  });

  it.each([
    { label: 'an unknown uuid v4', id: 'f47ac10b-58cc-4372-a567-0e02b2c3d479' },
    { label: 'a path traversal', id: '../x' },
    { label: 'a percent-encoded space', id: '%20' },
    { label: 'an over-long string (2100 characters)', id: 'x'.repeat(2100) },
  ])('answers 404 for $label', async ({ id }) => {
    expectProblem(await api.deleteSubscription(id), 404);
  });

  it('frees the address and EndpointUri: the same subscription can be created again (201, the same id)', async () => {
    const { info } = await subscribed();
    expectNoContent(await api.deleteSubscription(info.SubscriptionId));

    const again = await api.createSubscription({
      ResourceAddress: info.ResourceAddress,
      EndpointUri: info.EndpointUri,
    });

    // Ids follow from owner, address and endpoint, so that a delete needs no read (docs/architecture.md).
    expect(expectSubscribed(again).SubscriptionId).toBe(info.SubscriptionId);
  });

  it('stops delivery: an event published after the delete is not sent to the consumer', async () => {
    const { info, consumer, publisherId, node } = await subscribed();
    expectNoContent(await api.deleteSubscription(info.SubscriptionId));

    await publishAccepted(publisherId, lockStateEvent({ node }));

    await waitForQueueIdle({ concerning: node });
    expect(consumer.received).toEqual([]);
  });
});

describe('DELETE /subscriptions (delete all)', () => {
  it('answers 204 with an empty body and afterwards the list is []', async () => {
    const first = await subscribed();
    const second = await subscribed({ address: '{node}/sync' });

    expectNoContent(await api.deleteAllSubscriptions());

    const response = await api.listSubscriptions();
    expect(expectJson(response, 200)).toEqual([]);
    expect(response.rawBody).toBe('[]');
    expectProblem(await api.getSubscription(first.info.SubscriptionId), 404);
    expectProblem(await api.getSubscription(second.info.SubscriptionId), 404);
  });

  it('answers 204 with an empty body also when there are none', async () => {
    expectNoContent(await api.deleteAllSubscriptions());
    expectNoContent(await api.deleteAllSubscriptions());
    expect(await list()).toEqual([]);
  });

  it('deletes more than one page of subscriptions', async () => {
    const publisher = await lockStatePublisher({ withState: false });
    const consumer = await startConsumer();
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        api.createSubscription({ ResourceAddress: publisher.address, EndpointUri: `${consumer.url}/${i}` }),
      ),
    );
    expect(created.map((r) => r.status)).toEqual(Array(30).fill(201));

    expectNoContent(await api.deleteAllSubscriptions());

    expect(await list()).toEqual([]);
  });

  it('leaves publishers and their current state alone', async () => {
    const { address, event, publisherId } = await subscribed({ withState: true });

    expectNoContent(await api.deleteAllSubscriptions());

    expect(expectJson(await api.getPublisher(publisherId), 200)).toMatchObject({ ResourceAddress: address });
    expect(expectJson(await api.currentState(address), 200)).toEqual(event);
  });
});
