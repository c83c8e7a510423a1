/**
 * The first publish for a publisher on an instance that has not seen it (a cold Lambda): the
 * address is read while the accept update runs, and the update checks the source
 * itself. Each test builds a new `Publish`, so every publish here takes that path, against the
 * real table.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { config } from '../../lib/config';
import type { AcceptedEvent, DeliveryPort, PublisherStore } from '../../lib/domain/ports';
import { Publish } from '../../lib/domain/publish';
import { BadRequestError, NotFoundError } from '../../lib/errors';
import { publisherStore } from '../../lib/services';
import { documentClient } from '../../lib/store/dynamo-client';
import { keys } from '../../lib/store/keys';
import { lockStatePublisher } from '../support/api';
import { lockStateEvent } from '../support/fixtures';

/** The raw table item, to check what a refused or undone publish left behind. */
async function item(key: Record<string, string>) {
  const found = await documentClient().send(
    new GetCommand({ TableName: config().tableName, Key: key, ConsistentRead: true }),
  );
  return found.Item;
}

class RecordingDelivery implements DeliveryPort {
  readonly accepted: AcceptedEvent[] = [];
  async eventAccepted(accepted: AcceptedEvent): Promise<void> {
    this.accepted.push(accepted);
  }
  async currentStatesFor(): Promise<void> {}
}

async function registeredPublisher() {
  const { node, address, publisherId } = await lockStatePublisher({ withState: false });
  return { node, address, id: publisherId };
}

const TOLERANCE_MS = 2000;

function coldPublish(store: PublisherStore = publisherStore(), clock: () => number = Date.now) {
  const delivery = new RecordingDelivery();
  const settings = { timeToleranceMs: TOLERANCE_MS };
  return { publish: new Publish(store, delivery, settings, clock), delivery };
}

/** The refusals of a cold and of a warm instance for the same event, which must be the same 400. */
async function refusedColdAndWarm(id: string, node: string, wrong: unknown) {
  const warm = coldPublish();
  await warm.publish.publish(id, lockStateEvent({ node }));
  const [cold, known] = await Promise.all([
    coldRefusal(id, wrong),
    warm.publish.publish(id, wrong).catch((e: unknown) => e),
  ]);
  expect(cold).toBeInstanceOf(BadRequestError);
  expect(known).toBeInstanceOf(BadRequestError);
  expect((cold as BadRequestError).detail).toBe((known as BadRequestError).detail);
  return { cold: cold as BadRequestError };
}

/** What a cold instance's publish is refused with (a test fails if it is accepted). */
async function coldRefusal(publisherId: string, body: unknown): Promise<unknown> {
  const outcome = await coldPublish()
    .publish.publish(publisherId, body)
    .then(
      (result) => ({ accepted: result }),
      (error: unknown) => ({ error }),
    );
  if (!('error' in outcome)) throw new Error(`expected a refusal, got ${JSON.stringify(outcome.accepted)}`);
  return outcome.error;
}

describe('the first publish on an instance that does not know the publisher', () => {
  it('is accepted, becomes the current state and goes to delivery with the address', async () => {
    const { node, address, id } = await registeredPublisher();
    const { publish, delivery } = coldPublish();
    const event = lockStateEvent({ node, value: 'FREERUN' });

    const result = await publish.publish(id, event);

    expect(result.kind).toBe('accepted');
    expect(delivery.accepted).toEqual([
      expect.objectContaining({ publisherId: id, resourceAddress: address, event: result.event }),
    ]);
    const state = await publisherStore().getState(id);
    expect(state?.event).toEqual(result.event);
  });

  it('reads the address while the event is accepted, not before', async () => {
    const { node, id } = await registeredPublisher();
    const store = publisherStore();
    const calls: string[] = [];
    const watched: PublisherStore = Object.assign(Object.create(store) as PublisherStore, {
      getPublisher: async (publisherId: string) => {
        calls.push('read started');
        const publisher = await store.getPublisher(publisherId);
        calls.push('read done');
        return publisher;
      },
      acceptEvent: async (event: Parameters<PublisherStore['acceptEvent']>[0]) => {
        calls.push('accept started');
        return store.acceptEvent(event);
      },
    });
    const { publish } = coldPublish(watched);

    expect((await publish.publish(id, lockStateEvent({ node }))).kind).toBe('accepted');
    expect(calls.indexOf('accept started')).toBeLessThan(calls.indexOf('read done'));

    // Known from then on: the next publish makes no read.
    calls.length = 0;
    expect((await publish.publish(id, lockStateEvent({ node }))).kind).toBe('accepted');
    expect(calls).toEqual(['accept started']);
  });

  it('refuses a source that is not the resource part of the address (400 naming both), storing nothing', async () => {
    const { node, address, id } = await registeredPublisher();
    const eventId = randomUUID();
    const wrong = {
      ...lockStateEvent({ node, id: eventId }),
      source: '/sync/sync-status/sync-state',
      type: 'event.sync.sync-status.synchronization-state-change',
    };

    const error = await coldRefusal(id, wrong);

    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).detail).toBe(
      `source "/sync/sync-status/sync-state" must be the resource part of the publisher's address ${address}`,
    );
    expect(await publisherStore().getState(id)).toMatchObject({ event: undefined });
    // Nor is the event remembered as the current one (a repeat of it would be a duplicate).
    expect(await item(keys.publisherState(id))).not.toHaveProperty('eventKey');
  });

  it('gives the same answer for a wrong source as an instance that knows the address', async () => {
    const { node, id } = await registeredPublisher();
    const wrong = { ...lockStateEvent({ node }), source: '/ptp-status/lock-stat', type: 'event.x.y.z' };
    await refusedColdAndWarm(id, node, wrong);
  });

  it('accepts any whole-segment suffix of the address as the source', async () => {
    const { node, id } = await registeredPublisher();
    // Unknown types are accepted in the right form, so the source is checked only against the address.
    const event = (source: string) => ({ ...lockStateEvent({ node }), source, type: 'event.custom.a.b' });

    for (const source of ['/lock-state', '/ptp-status/lock-state', `${node}/sync/ptp-status/lock-state`]) {
      expect((await coldPublish().publish.publish(id, event(source))).kind).toBe('accepted');
    }
    const partial = await coldRefusal(id, event('/status/lock-state'));
    expect(partial).toBeInstanceOf(BadRequestError);
  });

  it('answers 404 for an unknown publisher, before looking at the event', async () => {
    const unknown = randomUUID();
    for (const body of [lockStateEvent({ node: '/c/s/n' }), { not: 'an event' }]) {
      const error = await coldRefusal(unknown, body);
      expect(error).toBeInstanceOf(NotFoundError);
    }
  });

  it('answers 400 for an invalid event of a known publisher', async () => {
    const { node, id } = await registeredPublisher();
    const error = await coldRefusal(id, { ...lockStateEvent({ node }), specversion: '0.3' });
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).detail).toContain('specversion');
  });

  it('ignores a repeat and an older event, as a warm instance does', async () => {
    const { node, id } = await registeredPublisher();
    const first = lockStateEvent({ node, time: '2026-11-22T10:00:00Z' });
    await coldPublish().publish.publish(id, first);

    const repeat = await coldPublish().publish.publish(id, first);
    const older = await coldPublish().publish.publish(
      id,
      lockStateEvent({ node, time: '2026-11-22T09:00:00Z' }),
    );

    expect(repeat).toMatchObject({ kind: 'ignored', reason: 'duplicate' });
    expect(older).toMatchObject({ kind: 'ignored', reason: 'stale' });
  });

  it('undoes the acceptance when the address cannot be read, so that the retry is accepted', async () => {
    const { node, id } = await registeredPublisher();
    const store = publisherStore();
    const failingRead: PublisherStore = Object.assign(Object.create(store) as PublisherStore, {
      getPublisher: async () => {
        throw new Error('store unavailable');
      },
    });
    const event = lockStateEvent({ node });

    const { publish, delivery } = coldPublish(failingRead);
    await expect(publish.publish(id, event)).rejects.toThrow('store unavailable');
    expect(delivery.accepted).toEqual([]);

    const retry = coldPublish();
    expect((await retry.publish.publish(id, event)).kind).toBe('accepted');
    expect(retry.delivery.accepted).toHaveLength(1);
  });

  it('takes the next event on a state item without the event key (as release 0.2.0 wrote it), then knows its repeat', async () => {
    const { node, id } = await registeredPublisher();
    const before = lockStateEvent({ node, time: '2026-11-22T10:00:00Z' });
    await coldPublish().publish.publish(id, before);
    await documentClient().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.publisherState(id),
        UpdateExpression: 'REMOVE eventKey',
      }),
    );
    const next = lockStateEvent({ node, time: '2026-11-22T10:00:01Z' });

    expect((await coldPublish().publish.publish(id, next)).kind).toBe('accepted');
    expect(await coldPublish().publish.publish(id, next)).toMatchObject({ reason: 'duplicate' });
    expect(await coldPublish().publish.publish(id, before)).toMatchObject({ reason: 'stale' });
  });

  it('answers 404 and undoes the acceptance when the publisher is deleted between the two', async () => {
    const { node, id } = await registeredPublisher();
    const store = publisherStore();
    let deleted: () => void = () => undefined;
    const deletion = new Promise<void>((resolve) => {
      deleted = resolve;
    });
    const deletesAfterAccepting: PublisherStore = Object.assign(Object.create(store) as PublisherStore, {
      acceptEvent: async (e: Parameters<PublisherStore['acceptEvent']>[0]) => {
        const outcome = await store.acceptEvent(e);
        await store.deletePublisher(id, 'anonymous', false);
        deleted();
        return outcome;
      },
      getPublisher: async (publisherId: string) => {
        await deletion;
        return store.getPublisher(publisherId);
      },
    });
    const event = lockStateEvent({ node });

    const { publish, delivery } = coldPublish(deletesAfterAccepting);
    await expect(publish.publish(id, event)).rejects.toBeInstanceOf(NotFoundError);

    expect(delivery.accepted).toEqual([]);
    // The undo wrote nothing either: no state item made again without its publisher.
    expect(await item(keys.publisherState(id))).toBeUndefined();
  });

  it('reads the address again when the first read came before the publisher existed', async () => {
    const { node, address, id } = await registeredPublisher();
    const store = publisherStore();
    let reads = 0;
    const createdJustAfterTheRead: PublisherStore = Object.assign(Object.create(store) as PublisherStore, {
      getPublisher: async (publisherId: string) => {
        reads++;
        return reads === 1 ? undefined : store.getPublisher(publisherId);
      },
    });

    const { publish, delivery } = coldPublish(createdJustAfterTheRead);
    const result = await publish.publish(id, lockStateEvent({ node }));

    expect(result.kind).toBe('accepted');
    expect(reads).toBe(2);
    expect(delivery.accepted).toEqual([expect.objectContaining({ resourceAddress: address })]);
  });

  it("answers with the store's error when the address cannot be read and the undo fails too", async () => {
    const { node, id } = await registeredPublisher();
    const store = publisherStore();
    const unavailable = new Error('store unavailable');
    const failing: PublisherStore = Object.assign(Object.create(store) as PublisherStore, {
      getPublisher: async () => {
        throw unavailable;
      },
      forgetAcceptedEvent: async () => {
        throw new Error('still unavailable');
      },
    });

    const { publish, delivery } = coldPublish(failing);
    await expect(publish.publish(id, lockStateEvent({ node }))).rejects.toBe(unavailable);
    expect(delivery.accepted).toEqual([]);
  });
});

describe("values[].ResourceAddress must lie on the publisher's node", () => {
  it('a cold instance refuses a value of another node (400 naming the value), storing nothing', async () => {
    const { node, address, id } = await registeredPublisher();
    const other = await registeredPublisher();
    const eventId = randomUUID();
    const event = lockStateEvent({ node, id: eventId });
    const foreign = lockStateEvent({ node: other.node }).data.values[0];
    const wrong = { ...event, data: { version: '1.0', values: [event.data.values[0], foreign] } };

    const error = await coldRefusal(id, wrong);

    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).detail).toBe(
      `data.values[1].ResourceAddress "${other.address}" must be on the publisher's node: at or under ${node} (its address ${address} less the source ${event.source})`,
    );
    expect(await publisherStore().getState(id)).toMatchObject({ event: undefined });
    // Nor is the event remembered as the current one (a repeat of it would be a duplicate).
    expect(await item(keys.publisherState(id))).not.toHaveProperty('eventKey');
  });

  it('a cold instance refuses a single value under another address as a warm one does', async () => {
    const { node, id } = await registeredPublisher();
    const other = await registeredPublisher();
    const event = lockStateEvent({ node });
    const wrong = {
      ...event,
      data: { version: '1.0', values: lockStateEvent({ node: other.node }).data.values },
    };
    const { cold } = await refusedColdAndWarm(id, node, wrong);
    expect(cold.detail).toContain('data.values[0].ResourceAddress');
  });

  it('accepts values at the address and under it (a port of the clock)', async () => {
    const { node, address, id } = await registeredPublisher();
    const event = lockStateEvent({ node });
    const value = event.data.values[0];
    const values = [value, { ...value, ResourceAddress: `${address}/ens1f0` }];

    expect(
      (await coldPublish().publish.publish(id, { ...event, data: { version: '1.0', values } })).kind,
    ).toBe('accepted');
  });
});

describe("an event's time against the service's clock", () => {
  const at = (ms: number) => new Date(ms).toISOString();

  it('refuses an event more than the tolerance ahead (400 naming time), storing nothing', async () => {
    const { node, id } = await registeredPublisher();
    const now = Date.parse('2030-01-01T00:00:00Z');
    const eventId = randomUUID();
    const ahead = lockStateEvent({ node, id: eventId, time: at(now + TOLERANCE_MS + 1) });

    const error = await coldPublish(publisherStore(), () => now)
      .publish.publish(id, ahead)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).detail).toBe(
      `time "${ahead.time}" is 2 s ahead of the service's clock; events may be at most 2 s ahead: check the producer's clock`,
    );
    expect(await publisherStore().getState(id)).toMatchObject({ event: undefined });
    // Nor is the event remembered as the current one (a repeat of it would be a duplicate).
    expect(await item(keys.publisherState(id))).not.toHaveProperty('eventKey');
  });

  it('a producer whose clock ran ahead within the tolerance and stepped back recovers once the tolerance has passed', async () => {
    const { node, id } = await registeredPublisher();
    let now = Date.parse('2030-01-01T00:00:00Z');
    const { publish, delivery } = coldPublish(publisherStore(), () => now);

    // The producer's clock is 2 s fast: accepted, within the tolerance.
    const fast = await publish.publish(
      id,
      lockStateEvent({ node, time: at(now + TOLERANCE_MS), value: 'HOLDOVER' }),
    );
    expect(fast.kind).toBe('accepted');
    // Corrected, its next event is older than the current state: ignored, the consumer is held.
    now += 500;
    const held = await publish.publish(id, lockStateEvent({ node, time: at(now), value: 'FREERUN' }));
    expect(held).toMatchObject({ kind: 'ignored', reason: 'stale' });
    // For no longer than the tolerance: from then on its correct events are accepted again.
    now += TOLERANCE_MS - 500;
    const recovered = await publish.publish(id, lockStateEvent({ node, time: at(now), value: 'FREERUN' }));
    expect(recovered.kind).toBe('accepted');
    expect(delivery.accepted.map((a) => a.event.data.values[0]?.value)).toEqual(['HOLDOVER', 'FREERUN']);
  });
});
