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

  it('publishes into a fresh, empty state once the address is registered again (the same id)', async () => {
    const node = `/${uniqueCluster()}/site-1/node-1`;
    const address = `${node}/sync/ptp-status/lock-state`;
    const id = await register(address);
    const old = lockStateEvent({ node, value: 'LOCKED' });
    expect((await publish(id, old)).status).toBe(202);
    expect((await remove(id)).status).toBe(204);
    expect((await publish(id, lockStateEvent({ node, value: 'FREERUN' }))).status).toBe(404);

    expect(await register(address)).toBe(id);
    const currentState = () =>
      invoke(getCurrentState, httpApiEvent({ method: 'GET', path: `${address}/CurrentState` }));
    expect((await currentState()).status).toBe(404);
    const current = lockStateEvent({ node, value: 'HOLDOVER' });
    expect((await publish(id, current)).status).toBe(202);
    const state = await currentState();
    expect(state.status).toBe(200);
    expect((state.body as { id: string }).id).toBe(current.id);
  });
});
