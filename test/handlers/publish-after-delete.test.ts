import { describe, expect, it } from 'vitest';
import {
  api,
  expectNoContent,
  expectProblem,
  freshNode,
  LOCK_STATE,
  registerPublisher,
} from '../support/api';
import { lockStateEvent } from '../support/fixtures';
import { useQueuedDelivery } from '../support/queued-delivery';

/**
 * A warm publish finds the publisher's address without a read; these check that a publisher
 * deleted (or replaced) since then is still refused with 404.
 */
useQueuedDelivery();

describe('publishing with an id whose publisher is gone', () => {
  it('answers 404 after the publisher was deleted, for a new event and for a repeat alike', async () => {
    const node = freshNode();
    const id = await registerPublisher(`${node}${LOCK_STATE}`);
    const first = lockStateEvent({ node });
    expect((await api.publish(id, first)).status).toBe(202);
    expectNoContent(await api.deletePublisher(id));

    expectProblem(await api.publish(id, lockStateEvent({ node })), 404, id);
    expectProblem(await api.publish(id, first), 404, id);
  });

  it('publishes into a fresh, empty state once the address is registered again (the same id)', async () => {
    const node = freshNode();
    const address = `${node}${LOCK_STATE}`;
    const id = await registerPublisher(address);
    const old = lockStateEvent({ node, value: 'LOCKED' });
    expect((await api.publish(id, old)).status).toBe(202);
    expectNoContent(await api.deletePublisher(id));
    expectProblem(await api.publish(id, lockStateEvent({ node, value: 'FREERUN' })), 404, id);

    expect(await registerPublisher(address)).toBe(id);
    expectProblem(await api.currentState(address), 404);
    const current = lockStateEvent({ node, value: 'HOLDOVER' });
    expect((await api.publish(id, current)).status).toBe(202);
    const state = await api.currentState(address);
    expect(state.status).toBe(200);
    expect((state.body as { id: string }).id).toBe(current.id);
  });
});
