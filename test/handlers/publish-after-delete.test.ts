import { describe, expect, it } from 'vitest';
import { handler as createPublisher } from '../../functions/create-publisher';
import { handler as deletePublisher } from '../../functions/delete-publisher';
import { handler as getCurrentState } from '../../functions/get-current-state';
import { handler as publishEvent } from '../../functions/publish-event';
import { lockStateEvent, uniqueCluster } from '../support/fixtures';
import { httpApiEvent, invoke } from '../support/http-event';
import { useQueuedDelivery } from '../support/queued-delivery';

/**
 * A warm publish finds the publisher's address without a read; these check that a publisher
 * deleted (or replaced) since then is still refused with 404.
 */
useQueuedDelivery();

async function register(address: string): Promise<string> {
  const response = await invoke(
    createPublisher,
    httpApiEvent({ method: 'POST', path: '/publishers', body: { ResourceAddress: address } }),
  );
  expect(response.status).toBe(201);
  return (response.body as { SubscriptionId: string }).SubscriptionId;
}

const publish = (publisherId: string, body: unknown) =>
  invoke(
    publishEvent,
    httpApiEvent({
      method: 'POST',
      path: `/publishers/${publisherId}/events`,
      pathParameters: { publisherId },
      body,
    }),
  );

const remove = (publisherId: string) =>
  invoke(
    deletePublisher,
    httpApiEvent({ method: 'DELETE', path: `/publishers/${publisherId}`, pathParameters: { publisherId } }),
  );

describe('publishing with an id whose publisher is gone', () => {
  it('answers 404 after the publisher was deleted, for a new event and for a repeat alike', async () => {
    const node = `/${uniqueCluster()}/site-1/node-1`;
    const id = await register(`${node}/sync/ptp-status/lock-state`);
    const first = lockStateEvent({ node });
    expect((await publish(id, first)).status).toBe(202);
    expect((await remove(id)).status).toBe(204);

    const fresh = await publish(id, lockStateEvent({ node }));
    expect(fresh.status).toBe(404);
    expect(fresh.headers['content-type']).toBe('application/problem+json');
    expect((await publish(id, first)).status).toBe(404);
  });

  it('answers 404 for the old id after the address was registered again, and leaves the new state alone', async () => {
    const node = `/${uniqueCluster()}/site-1/node-1`;
    const address = `${node}/sync/ptp-status/lock-state`;
    const oldId = await register(address);
    expect((await publish(oldId, lockStateEvent({ node, value: 'LOCKED' }))).status).toBe(202);
    expect((await remove(oldId)).status).toBe(204);
    const newId = await register(address);
    const current = lockStateEvent({ node, value: 'HOLDOVER' });
    expect((await publish(newId, current)).status).toBe(202);

    expect((await publish(oldId, lockStateEvent({ node, value: 'FREERUN' }))).status).toBe(404);
    const state = await invoke(
      getCurrentState,
      httpApiEvent({ method: 'GET', path: `${address}/CurrentState` }),
    );
    expect(state.status).toBe(200);
    expect((state.body as { id: string }).id).toBe(current.id);
  });
});
