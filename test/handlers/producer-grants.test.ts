/**
 * Producer grants and publisher owners on the local stage (docs/security.md): a producer named by
 * X-Producer-Id registers only under the prefixes granted to it; the unnamed producer holds every
 * grant; a publisher is published through, deleted and registered over only by its principal.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { producerGrants } from '../../lib/services';
import { captureEmf, metricValues } from '../support/emf';
import { lockStateEvent } from '../support/fixtures';
import { api, expectJson, expectProblem, freshNode, LOCK_STATE, type SubscriptionInfo } from './api';

const as = (name: string) => ({ headers: { 'x-producer-id': name } });

type LogLine = { level: string; message: string } & Record<string, unknown>;
let lines: LogLine[] = [];
beforeEach(() => {
  lines = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    for (const text of String(chunk).split('\n')) {
      if (text.startsWith('{') && !text.includes('"_aws"')) lines.push(JSON.parse(text) as LogLine);
    }
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('producer grants (local stage: X-Producer-Id)', () => {
  it('refuses a named producer without a grant: 403 naming the grant and the command that adds it, logged and counted', async () => {
    const address = `${freshNode()}${LOCK_STATE}`;
    let response: Awaited<ReturnType<typeof api.createPublisher>> | undefined;
    const emf = await captureEmf(async () => {
      response = await api.createPublisher({ ResourceAddress: address }, as('node-a'));
    });
    if (!response) throw new Error('no response');
    expectProblem(
      response,
      403,
      `Producer local:node-a holds no grant for ${address} (it holds no grant); an operator grants it with: npm run grants -- add 'local:node-a' ${address}`,
    );
    expect(metricValues(emf, 'ProducerGrantRefusals').map((m) => m.value)).toEqual([1]);
    expect(lines).toContainEqual(
      expect.objectContaining({ message: 'refused', rule: 'grant', principal: 'local:node-a', address }),
    );
    // Nothing was registered.
    expectProblem(await api.currentState(address), 404, 'No publisher is registered');
  });

  it('registers under a granted prefix, segment by segment: /…/node-1 covers node-1’s addresses, not node-10’s', async () => {
    const node = freshNode();
    await producerGrants().addGrant('local:node-1', node);

    const own = await api.createPublisher({ ResourceAddress: `${node}${LOCK_STATE}` }, as('node-1'));
    expect(expectJson<SubscriptionInfo>(own, 201).ResourceAddress).toBe(`${node}${LOCK_STATE}`);

    const neighbour = `${node}0${LOCK_STATE}`;
    const refused = expectProblem(
      await api.createPublisher({ ResourceAddress: neighbour }, as('node-1')),
      403,
      `holds no grant for ${neighbour} (its grants: ${node})`,
    );
    expect(refused.detail).toContain(`npm run grants -- add 'local:node-1' ${neighbour}`);
  });

  it('a grant removed stops the next registration', async () => {
    const node = freshNode();
    await producerGrants().addGrant('local:revoked', node);
    expect(await producerGrants().removeGrant('local:revoked', node)).toBe(true);
    expect(await producerGrants().removeGrant('local:revoked', node)).toBe(false);
    expectProblem(
      await api.createPublisher({ ResourceAddress: `${node}${LOCK_STATE}` }, as('revoked')),
      403,
      'holds no grant',
    );
  });

  it('the unnamed producer holds every grant', async () => {
    expect((await api.createPublisher({ ResourceAddress: `${freshNode()}${LOCK_STATE}` })).status).toBe(201);
  });

  it('refuses a malformed X-Producer-Id with a 400 that says what it must be', async () => {
    expectProblem(
      await api.createPublisher({ ResourceAddress: `${freshNode()}${LOCK_STATE}` }, as('a b')),
      400,
      'X-Producer-Id must be 1 to 128 letters',
    );
  });
});

describe('a publisher belongs to the principal that registered it', () => {
  async function twoProducersOnOneNode() {
    const node = freshNode();
    const address = `${node}${LOCK_STATE}`;
    await producerGrants().addGrant('local:owner', node);
    await producerGrants().addGrant('local:intruder', node);
    const created = await api.createPublisher({ ResourceAddress: address }, as('owner'));
    return { node, address, id: expectJson<SubscriptionInfo>(created, 201).SubscriptionId };
  }

  it('another principal, though granted, cannot publish through it: 403 naming the rule; the owner can', async () => {
    const { node, address, id } = await twoProducersOnOneNode();
    let response: Awaited<ReturnType<typeof api.publish>> | undefined;
    const emf = await captureEmf(async () => {
      response = await api.publish(id, lockStateEvent({ node, value: 'LOCKED' }), as('intruder'));
    });
    if (!response) throw new Error('no response');
    expectProblem(
      response,
      403,
      `The publisher at ${address} was registered by another producer principal: only the principal that registered a publisher may publish through it (you are local:intruder`,
    );
    expect(metricValues(emf, 'PublisherOwnershipRefusals').map((m) => m.value)).toEqual([1]);
    expect(lines).toContainEqual(
      expect.objectContaining({ rule: 'ownership', principal: 'local:intruder', address }),
    );
    // Nothing changed: the owner's next event is the first state.
    expectProblem(await api.currentState(address), 404, 'has not published any event yet');
    const event = lockStateEvent({ node, value: 'FREERUN' });
    expect((await api.publish(id, event, as('owner'))).status).toBe(202);
    expect(expectJson<{ data: unknown }>(await api.currentState(address), 200).data).toEqual(event.data);
  });

  it('the unnamed producer cannot publish through a named one’s publisher either', async () => {
    const { node, id } = await twoProducersOnOneNode();
    expectProblem(
      await api.publish(id, lockStateEvent({ node })),
      403,
      'may publish through it (you are anonymous',
    );
  });

  it('another principal cannot delete it (403) or register over it (403, not the 409 its owner gets)', async () => {
    const { address, id } = await twoProducersOnOneNode();
    expectProblem(
      await api.deletePublisher(id, as('intruder')),
      403,
      'may delete it (you are local:intruder',
    );
    expectProblem(
      await api.createPublisher({ ResourceAddress: address }, as('intruder')),
      403,
      `The publisher at ${address} was registered by another producer principal: only the principal that registered a publisher may register over it`,
    );
    expectProblem(await api.createPublisher({ ResourceAddress: address }, as('owner')), 409);
    expect((await api.getPublisher(id)).status).toBe(200);
    expect((await api.deletePublisher(id, as('owner'))).status).toBe(204);
    expectProblem(await api.deletePublisher(id, as('owner')), 404);
  });
});
