/**
 * Without consumer authentication (the local stage), callers that name themselves in X-Consumer-Id
 * own their subscriptions apart: one that deletes all of its own leaves the others' alone, which
 * is what Red Hat's reference consumer does on a 409 or a failed health check.
 */
import { describe, expect, it } from 'vitest';
import { handler as createSubscription } from '../../functions/http/create-subscription';
import { handler as deleteAllSubscriptions } from '../../functions/http/delete-all-subscriptions';
import { handler as listSubscriptions } from '../../functions/http/list-subscriptions';
import { httpApiEvent, invoke } from '../support/http-event';
import { SINK } from '../support/sink';
import { expectProblem, lockStatePublisher } from './api';

const as = (consumer: string | undefined): Record<string, string> =>
  consumer === undefined ? {} : { 'x-consumer-id': consumer };

async function subscribe(consumer: string | undefined, address: string, path: string) {
  return invoke(
    createSubscription,
    httpApiEvent({
      method: 'POST',
      path: '/subscriptions',
      body: { ResourceAddress: address, EndpointUri: `${SINK}/${path}` },
      headers: as(consumer),
    }),
  );
}

async function list(consumer: string | undefined): Promise<string[]> {
  const response = await invoke(
    listSubscriptions,
    httpApiEvent({ method: 'GET', path: '/subscriptions', headers: as(consumer) }),
  );
  expect(response.status).toBe(200);
  return (response.body as { EndpointUri: string }[]).map((s) => s.EndpointUri.slice(SINK.length + 1)).sort();
}

describe('X-Consumer-Id: distinct owners on the local stage', () => {
  it("one consumer's delete-all leaves another's subscriptions, and the anonymous ones, alone", async () => {
    const { address } = await lockStatePublisher({ withState: false });
    expect((await subscribe('vdu-a', address, 'a')).status).toBe(201);
    expect((await subscribe('vdu-b', address, 'b')).status).toBe(201);
    expect((await subscribe(undefined, address, 'anonymous')).status).toBe(201);
    // The same endpoint and address under another owner is another subscription, not a 409.
    expect((await subscribe('vdu-b', address, 'a')).status).toBe(201);

    expect(await list('vdu-a')).toEqual(['a']);
    const deleted = await invoke(
      deleteAllSubscriptions,
      httpApiEvent({ method: 'DELETE', path: '/subscriptions', headers: as('vdu-a') }),
    );
    expect(deleted.status).toBe(204);

    expect(await list('vdu-a')).toEqual([]);
    expect(await list('vdu-b')).toEqual(['a', 'b']);
    expect(await list(undefined)).toEqual(['anonymous']);
  });

  it.each(['', 'has space', 'x'.repeat(129), 'slash/inside'])(
    'a malformed X-Consumer-Id %j → 400 naming it',
    async (value) => {
      const response = await invoke(
        listSubscriptions,
        httpApiEvent({ method: 'GET', path: '/subscriptions', headers: { 'x-consumer-id': value } }),
      );
      expectProblem(response, 400, 'X-Consumer-Id');
    },
  );
});
