import { describe, expect, it } from 'vitest';
import { type Consumer, trackConsumers } from '../support/consumer';
import { lockStateEvent } from '../support/fixtures';
import { waitForQueueIdle } from '../support/queue-idle';
import {
  api,
  bodyOfBytes,
  CLOCK_CLASS,
  eventFor,
  expectJson,
  expectProblem,
  freshNode,
  LOCK_STATE,
  lockStatePublisher,
  MAX_BODY_BYTES,
  type NotificationEvent,
  publishAccepted,
  registerPublisher,
  type SubscriptionInfo,
  SYNC_STATE,
} from './api';

const startConsumer = trackConsumers();

async function subscribe(address: string, consumer: Consumer): Promise<SubscriptionInfo> {
  return expectJson<SubscriptionInfo>(
    await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url }),
    201,
  );
}

/** A lock-state publisher without a state, and a consumer subscribed to exactly its address. */
async function publisherWithSubscriber() {
  const publisher = await lockStatePublisher({ withState: false });
  const consumer = await startConsumer();
  await subscribe(publisher.address, consumer);
  return { ...publisher, consumer };
}

async function currentState(address: string): Promise<NotificationEvent> {
  return expectJson<NotificationEvent>(await api.currentState(address), 200);
}

describe('POST /publishers/{publisherId}/events — 202 Accepted', () => {
  it('becomes the current state and is delivered to every covering subscription, and only to those', async () => {
    const node = freshNode();
    const cluster = node.split('/')[1] ?? '';
    const address = `${node}${LOCK_STATE}`;
    const publisherId = await registerPublisher(address);
    await registerPublisher(`${node}${CLOCK_CLASS}`);
    await registerPublisher(`${node.replace(/node-1$/, 'node-2')}${LOCK_STATE}`);
    const covering = {
      exact: await startConsumer(),
      sync: await startConsumer(),
      node: await startConsumer(),
      cluster: await startConsumer(),
    };
    const notCovering = { sibling: await startConsumer(), otherNode: await startConsumer() };
    await subscribe(address, covering.exact);
    await subscribe(`${node}/sync`, covering.sync);
    await subscribe(node, covering.node);
    await subscribe(`/${cluster}`, covering.cluster);
    await subscribe(`${node}${CLOCK_CLASS}`, notCovering.sibling);
    await subscribe(`${node.replace(/node-1$/, 'node-2')}/sync`, notCovering.otherNode);
    const event = lockStateEvent({ node, value: 'LOCKED' });
    const before = Math.floor(Date.now() / 1000);

    const response = await api.publish(publisherId, event);

    expect(response.status, response.rawBody).toBe(202);
    expect(await currentState(address)).toEqual(event);
    for (const consumer of Object.values(covering)) {
      const [delivered] = await consumer.waitFor(1);
      expect(delivered?.method).toBe('POST');
      expect(delivered?.body).toEqual(event);
      expect(delivered?.headers['content-type']).toMatch(/^application\/json(;|$)/);
      expect(delivered?.headers['webhook-id']).toEqual(expect.stringMatching(/\S/));
      expect(Number(delivered?.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(before - 1);
      expect(delivered?.headers['user-agent']).toMatch(/\S+\/\d+\.\d+/);
    }
    await waitForQueueIdle({ concerning: address });
    for (const consumer of Object.values(covering)) expect(consumer.received).toHaveLength(1);
    for (const consumer of Object.values(notCovering)) expect(consumer.received).toEqual([]);
  });

  it('is still accepted, and still reaches the others, when one subscriber fails', async () => {
    const { address, node, publisherId, consumer: healthy } = await publisherWithSubscriber();
    const failing = await startConsumer([{ status: 500 }]);
    await subscribe(`${node}/sync`, failing);
    const event = lockStateEvent({ node });

    await publishAccepted(publisherId, event);

    expect((await healthy.waitFor(1))[0]?.body).toEqual(event);
    expect(await currentState(address)).toEqual(event);
  });

  it('accepts an equal time with a new id: it replaces the current state and is delivered', async () => {
    const { node, address, publisherId, consumer } = await publisherWithSubscriber();
    const time = '2024-06-01T12:00:00.123456789Z';
    const first = lockStateEvent({ node, time, value: 'HOLDOVER' });
    const second = lockStateEvent({ node, time, value: 'LOCKED' });
    await publishAccepted(publisherId, first);

    await publishAccepted(publisherId, second);

    expect(await currentState(address)).toEqual(second);
    // Neither is older than the other, so both are delivered, in whichever order delivery runs.
    const received = (await consumer.waitFor(2)).map((r) => r.body);
    expect(received).toHaveLength(2);
    expect(received).toEqual(expect.arrayContaining([first, second]));
  });

  it.each([
    { label: '1 ns newer', current: '2024-06-01T12:00:00Z', next: '2024-06-01T12:00:00.000000001Z' },
    {
      label: 'newer with fewer fraction digits',
      current: '2024-06-01T12:00:00.49999Z',
      next: '2024-06-01T12:00:00.5Z',
    },
    { label: 'a day newer', current: '2024-06-01T23:59:59.999Z', next: '2024-06-02T00:00:00Z' },
  ])('accepts a newer time ($label)', async ({ current, next }) => {
    const { node, address, publisherId } = await lockStatePublisher({ time: current });
    const newer = lockStateEvent({ node, time: next });

    await publishAccepted(publisherId, newer);

    expect(await currentState(address)).toEqual(newer);
  });
});

describe('POST /publishers/{publisherId}/events — 200 (ignored)', () => {
  it('a repeat of (source, id) → 200, not delivered again, current state unchanged', async () => {
    const { node, address, publisherId, consumer } = await publisherWithSubscriber();
    const original = lockStateEvent({ node, time: '2024-06-01T12:00:00Z', value: 'HOLDOVER' });
    await publishAccepted(publisherId, original);
    await consumer.waitFor(1);

    const identical = await api.publish(publisherId, original);
    const sameIdNewer = await api.publish(publisherId, {
      ...lockStateEvent({ node, time: '2024-06-01T13:00:00Z', value: 'FREERUN' }),
      id: original.id,
    });

    expect(identical.status, identical.rawBody).toBe(200);
    expect(sameIdNewer.status, sameIdNewer.rawBody).toBe(200);
    expect(await currentState(address)).toEqual(original);
    await waitForQueueIdle({ concerning: address });
    expect(consumer.received).toHaveLength(1);
  });

  it('a repeat of the current event is a duplicate; of one no longer current, stale (200 both, saying so)', async () => {
    const { node, address, publisherId, consumer } = await publisherWithSubscriber();
    const first = lockStateEvent({ node, time: '2024-06-01T12:00:00Z', value: 'HOLDOVER' });
    const second = lockStateEvent({ node, time: '2024-06-01T12:00:01Z', value: 'LOCKED' });
    await publishAccepted(publisherId, first);
    await publishAccepted(publisherId, second);
    await consumer.waitFor(2);

    const current = await api.publish(publisherId, second);
    const earlier = await api.publish(publisherId, first);

    expect(current.status, current.rawBody).toBe(200);
    expect(current.body).toEqual({
      accepted: false,
      reason: 'duplicate',
      detail: `The event with source ${second.source} and id ${second.id} is the current state already; it was not stored or delivered again`,
    });
    expect(earlier.status, earlier.rawBody).toBe(200);
    expect(earlier.body).toMatchObject({ accepted: false, reason: 'stale' });
    expect((earlier.body as { detail: string }).detail).toContain(
      'a repeat of an event that is no longer the current state',
    );
    expect(await currentState(address)).toEqual(second);
    await waitForQueueIdle({ concerning: address });
    expect(consumer.received).toHaveLength(2);
  });

  it.each([
    { label: 'an hour older', current: '2024-06-01T12:00:00Z', older: '2024-06-01T11:00:00Z' },
    { label: '1 ns older', current: '2024-06-01T12:00:00.000000001Z', older: '2024-06-01T12:00:00Z' },
    {
      label: 'older with more fraction digits',
      current: '2024-06-01T12:00:00.5Z',
      older: '2024-06-01T12:00:00.49999Z',
    },
  ])(
    'an event $label than the current state → 200, current state unchanged, not delivered',
    async ({ current, older }) => {
      const { node, address, publisherId, consumer } = await publisherWithSubscriber();
      const newest = lockStateEvent({ node, time: current });
      await publishAccepted(publisherId, newest);
      await consumer.waitFor(1);

      const response = await api.publish(
        publisherId,
        lockStateEvent({ node, time: older, value: 'FREERUN' }),
      );

      expect(response.status, response.rawBody).toBe(200);
      expect(await currentState(address)).toEqual(newest);
      await waitForQueueIdle({ concerning: address });
      expect(consumer.received).toHaveLength(1);
    },
  );

  it('an older event is not remembered as seen: its id can still be accepted later with a newer time', async () => {
    const { node, publisherId } = await lockStatePublisher({ time: '2024-06-01T12:00:00Z' });
    const stale = lockStateEvent({ node, time: '2024-06-01T11:00:00Z' });
    expect((await api.publish(publisherId, stale)).status).toBe(200);

    const retried = { ...stale, time: '2024-06-01T12:30:00Z' };
    expect((await api.publish(publisherId, retried)).status).toBe(202);
  });
});

describe('POST /publishers/{publisherId}/events — 404', () => {
  it.each([
    { label: 'an unknown uuid', id: 'f47ac10b-58cc-4372-a567-0e02b2c3d479' },
    { label: 'a string that is not an id', id: '../x' },
    { label: 'an over-long string (2100 characters)', id: 'x'.repeat(2100) },
  ])('unknown publisher ($label) → 404', async ({ id }) => {
    const node = freshNode();
    expectProblem(await api.publish(id, lockStateEvent({ node })), 404);
  });

  it('a deleted publisher → 404', async () => {
    const { node, publisherId } = await lockStatePublisher({ withState: false });
    expect((await api.deletePublisher(publisherId)).status).toBe(204);
    expectProblem(await api.publish(publisherId, lockStateEvent({ node })), 404, publisherId);
  });
});

type Mutation = (event: Record<string, unknown>) => void;
const value0 = (event: Record<string, unknown>) =>
  ((event.data as { values: Record<string, unknown>[] }).values[0] ?? {}) as Record<string, unknown>;
const data = (event: Record<string, unknown>) => event.data as Record<string, unknown>;

describe('POST /publishers/{publisherId}/events — 400 invalid event', () => {
  it.each([
    { label: 'a malformed JSON string', body: '{"id": ' },
    { label: 'a JSON array', body: '[]' },
    { label: 'JSON null', body: 'null' },
    { label: 'a JSON string', body: '"event"' },
  ])('a body that is not a JSON object ($label)', async ({ body }) => {
    const { publisherId } = await lockStatePublisher({ withState: false });
    expectProblem(await api.publish(publisherId, body), 400);
  });

  it.each<{ label: string; member: string; mutate: Mutation }>([
    { label: 'id missing', member: 'id', mutate: (e) => delete e.id },
    { label: 'id empty', member: 'id', mutate: (e) => (e.id = '') },
    { label: 'id a number', member: 'id', mutate: (e) => (e.id = 1234) },
    { label: 'specversion missing', member: 'specversion', mutate: (e) => delete e.specversion },
    { label: 'specversion 2.0', member: 'specversion', mutate: (e) => (e.specversion = '2.0') },
    { label: 'specversion a number', member: 'specversion', mutate: (e) => (e.specversion = 1.0) },
    { label: 'source missing', member: 'source', mutate: (e) => delete e.source },
    {
      label: 'source without a leading slash',
      member: 'source',
      mutate: (e) => (e.source = 'sync/ptp-status/lock-state'),
    },
    { label: 'source with a wildcard', member: 'source', mutate: (e) => (e.source = '/sync/ptp-status/*') },
    { label: 'type missing', member: 'type', mutate: (e) => delete e.type },
    { label: 'type not dotted', member: 'type', mutate: (e) => (e.type = 'ptp-state-change') },
    {
      label: 'type not starting with event.',
      member: 'type',
      mutate: (e) => (e.type = 'sync.ptp-status.ptp-state-change.x'),
    },
    { label: 'type too short', member: 'type', mutate: (e) => (e.type = 'event.sync.change') },
    { label: 'time missing', member: 'time', mutate: (e) => delete e.time },
    { label: 'time not a timestamp', member: 'time', mutate: (e) => (e.time = 'yesterday') },
    {
      label: 'time with a non-UTC offset',
      member: 'time',
      mutate: (e) => (e.time = '2024-06-01T12:00:00+01:00'),
    },
    { label: 'time without a zone', member: 'time', mutate: (e) => (e.time = '2024-06-01T12:00:00') },
    { label: 'time an impossible date', member: 'time', mutate: (e) => (e.time = '2024-02-30T12:00:00Z') },
    {
      label: 'time with more than 9 fraction digits',
      member: 'time',
      mutate: (e) => (e.time = '2024-06-01T12:00:00.1234567890Z'),
    },
    { label: 'time a number', member: 'time', mutate: (e) => (e.time = 1717243200) },
    { label: 'data missing', member: 'data', mutate: (e) => delete e.data },
    { label: 'data an array', member: 'data', mutate: (e) => (e.data = []) },
    { label: 'data.version missing', member: 'data.version', mutate: (e) => delete data(e).version },
    { label: 'data.version a number', member: 'data.version', mutate: (e) => (data(e).version = 1.0) },
    { label: 'data.values missing', member: 'data.values', mutate: (e) => delete data(e).values },
    { label: 'data.values empty', member: 'data.values', mutate: (e) => (data(e).values = []) },
    { label: 'data.values an object', member: 'data.values', mutate: (e) => (data(e).values = {}) },
    {
      label: 'a value that is not an object',
      member: 'data.values[0]',
      mutate: (e) => (data(e).values = ['LOCKED']),
    },
    {
      label: 'value ResourceAddress missing',
      member: 'data.values[0].ResourceAddress',
      mutate: (e) => delete value0(e).ResourceAddress,
    },
    {
      label: 'value ResourceAddress malformed',
      member: 'data.values[0].ResourceAddress',
      mutate: (e) => (value0(e).ResourceAddress = 'no/leading/slash'),
    },
    {
      label: 'data_type missing',
      member: 'data.values[0].data_type',
      mutate: (e) => delete value0(e).data_type,
    },
    {
      label: 'data_type unknown',
      member: 'data.values[0].data_type',
      mutate: (e) => (value0(e).data_type = 'event'),
    },
    {
      label: 'value_type missing',
      member: 'data.values[0].value_type',
      mutate: (e) => delete value0(e).value_type,
    },
    { label: 'value missing', member: 'data.values[0].value', mutate: (e) => delete value0(e).value },
    { label: 'value null', member: 'data.values[0].value', mutate: (e) => (value0(e).value = null) },
    {
      label: 'enumeration value not a string',
      member: 'data.values[0].value',
      mutate: (e) => (value0(e).value = 1),
    },
  ])('$label → 400 naming $member', async ({ member, mutate }) => {
    const { node, publisherId, address } = await lockStatePublisher({ withState: false });
    const event = lockStateEvent({ node }) as unknown as Record<string, unknown>;
    mutate(event);

    expectProblem(await api.publish(publisherId, event), 400, member);
    expectProblem(await api.currentState(address), 404);
  });

  it('names the failing entry of data.values', async () => {
    const { node, publisherId } = await lockStatePublisher({ withState: false });
    const event = lockStateEvent({ node });
    const bad = { ...event.data.values[0], value_type: 'decimal64.3', value: 'fast' };

    const response = await api.publish(publisherId, {
      ...event,
      data: { version: '1.0', values: [event.data.values[0], bad] },
    });

    expectProblem(response, 400, 'data.values[1].value');
  });

  it.each([
    { label: 'another resource of the node', source: CLOCK_CLASS },
    { label: 'a truncated resource', source: '/sync/ptp-status/lock-stat' },
    { label: 'a resource of another area', source: SYNC_STATE },
    { label: 'the node itself', source: '/site-1/node-1' },
  ])(
    'source not the resource part of the publisher address ($label) → 400 naming source',
    async ({ source }) => {
      const { node, publisherId } = await lockStatePublisher({ withState: false });
      const event = eventFor({ node, source, type: 'event.sync.custom-status.custom-change', value: 'X' });

      expectProblem(await api.publish(publisherId, event), 400, 'source');
    },
  );

  it('an event dated 2099 → 400 naming time; the next, correct event is accepted and delivered', async () => {
    const { node, address, publisherId, consumer } = await publisherWithSubscriber();

    const response = await api.publish(publisherId, lockStateEvent({ node, time: '2099-01-01T00:00:00Z' }));

    expectProblem(response, 400, 'time');
    expect((await api.currentState(address)).status).toBe(404);
    await publishAccepted(publisherId, lockStateEvent({ node, value: 'FREERUN' }));
    expect((await currentState(address)).data.values[0]?.value).toBe('FREERUN');
    const [notification] = await consumer.waitFor(1);
    expect(notification?.body).toMatchObject({ data: { values: [{ value: 'FREERUN' }] } });
  });

  it('an event a second ahead of the service (within the tolerance) → 202', async () => {
    const { node, publisherId } = await lockStatePublisher({ withState: false });
    const time = new Date(Date.now() + 1000).toISOString();

    await publishAccepted(publisherId, lockStateEvent({ node, time }));
  });

  it("a value whose ResourceAddress is another node's → 400 naming it; one under the publisher's → 202", async () => {
    const { node, address, publisherId } = await lockStatePublisher({ withState: false });
    const event = lockStateEvent({ node });
    const value = event.data.values[0];
    const otherNode = { ...value, ResourceAddress: address.replace(node, freshNode()) };

    const response = await api.publish(publisherId, {
      ...event,
      data: { version: '1.0', values: [otherNode] },
    });

    expectProblem(response, 400, 'data.values[0].ResourceAddress');
    const values = [value, { ...value, ResourceAddress: `${address}/ens1f0` }];
    await publishAccepted(publisherId, { ...event, data: { version: '1.0', values } });
  });

  it('a known type with a source other than the catalogue one → 400 naming source', async () => {
    const node = freshNode();
    const publisherId = await registerPublisher(`${node}${SYNC_STATE}`);
    const event = eventFor({
      node,
      source: SYNC_STATE,
      type: 'event.sync.ptp-status.ptp-state-change',
      value: 'LOCKED',
    });

    expectProblem(await api.publish(publisherId, event), 400, 'source');
  });
});

describe('POST /publishers/{publisherId}/events — the catalogue and value types', () => {
  const catalogue = [
    {
      source: SYNC_STATE,
      type: 'event.sync.sync-status.synchronization-state-change',
      valid: ['LOCKED', 'HOLDOVER', 'FREERUN'],
      invalid: ['SYNCHRONIZED', 'locked'],
    },
    {
      source: LOCK_STATE,
      type: 'event.sync.ptp-status.ptp-state-change',
      valid: ['LOCKED', 'HOLDOVER', 'FREERUN'],
      invalid: ['UNLOCKED', ''],
    },
    {
      source: '/sync/sync-status/os-clock-sync-state',
      type: 'event.sync.sync-status.os-clock-sync-state-change',
      valid: ['LOCKED', 'HOLDOVER', 'FREERUN'],
      invalid: ['ACQUIRING-SYNC'],
    },
    {
      source: '/sync/gnss-status/gnss-sync-status',
      type: 'event.sync.gnss-status.gnss-state-change',
      valid: [
        'SYNCHRONIZED',
        'ACQUIRING-SYNC',
        'ANTENNA-DISCONNECTED',
        'BOOTING',
        'ANTENNA-SHORT-CIRCUIT',
        'FAILURE-MULTIPATH',
        'FAILURE-NOFIX',
        'FAILURE-LOW-SNR',
        'FAILURE-PLL',
      ],
      invalid: ['LOCKED', 'FAILURE'],
    },
    {
      source: '/sync/synce-status/lock-state',
      type: 'event.sync.synce-status.synce-state-change',
      valid: ['LOCKED', 'HOLDOVER', 'FREERUN'],
      invalid: ['SYNCHRONIZED'],
    },
  ];

  it.each(catalogue)(
    '$type accepts its states and refuses others, naming the value',
    async ({ source, type, valid, invalid }) => {
      const node = freshNode();
      const publisherId = await registerPublisher(`${node}${source}`);
      let second = 0;
      const at = () => `2024-06-01T12:00:${String(second++).padStart(2, '0')}Z`;

      for (const value of valid) {
        const event = eventFor({ node, source, type, value, time: at() });
        const response = await api.publish(publisherId, event);
        expect(response.status, `${value}: ${response.rawBody}`).toBe(202);
        expect(await currentState(`${node}${source}`)).toEqual(event);
      }
      for (const value of invalid) {
        const response = await api.publish(publisherId, eventFor({ node, source, type, value, time: at() }));
        expectProblem(response, 400, 'data.values[0].value');
      }
    },
  );

  it.each([
    { source: CLOCK_CLASS, type: 'event.sync.ptp-status.ptp-clock-class-change' },
    {
      source: '/sync/synce-status/clock-quality',
      type: 'event.sync.synce-status.synce-clock-quality-change',
    },
  ])(
    '$type takes a metric 0–255 (number or numeric string), serves it as a decimal64.3 string and refuses values outside',
    async ({ source, type }) => {
      const node = freshNode();
      const publisherId = await registerPublisher(`${node}${source}`);
      const metric = (value: unknown, second: number) =>
        eventFor({
          node,
          source,
          type,
          value,
          valueType: 'metric',
          dataType: 'metric',
          time: `2024-06-01T12:00:${String(second).padStart(2, '0')}Z`,
        });

      for (const [i, value] of [0, 6, '7', 248, '255'].entries()) {
        const event = metric(value, i);
        expect((await api.publish(publisherId, event)).status).toBe(202);
        expect((await currentState(`${node}${source}`)).data.values[0]).toMatchObject({
          value_type: 'decimal64.3',
          value: String(value),
        });
      }
      for (const [i, value] of [256, '300', -1, 1.5, '6.0', 'six'].entries()) {
        expectProblem(await api.publish(publisherId, metric(value, 10 + i)), 400, 'data.values[0].value');
      }
    },
  );

  it.each([
    { value: 12.5, ok: true },
    { value: '-0.125', ok: true },
    { value: 3, ok: true },
    { value: '42', ok: true },
    { value: '12.500', ok: true },
    { value: 1.2345, ok: false },
    { value: '1.2345', ok: false },
    { value: 'fast', ok: false },
    { value: '', ok: false },
    { value: true, ok: false },
  ])('decimal64.3 value $value → ok: $ok, served as a string', async ({ value, ok }) => {
    const { node, address, publisherId } = await lockStatePublisher({ withState: false });
    const base = lockStateEvent({ node });
    const event = {
      ...base,
      data: {
        version: '1.0',
        values: [
          ...base.data.values,
          { data_type: 'metric', ResourceAddress: address, value_type: 'decimal64.3', value },
        ],
      },
    };

    const response = await api.publish(publisherId, event);

    if (ok) {
      expect(response.status, response.rawBody).toBe(202);
      expect((await currentState(address)).data.values[1]?.value).toBe(String(value));
    } else {
      expectProblem(response, 400, 'data.values[1].value');
    }
  });

  it.each([
    { value: 0, ok: true },
    { value: '17', ok: true },
    { value: -1, ok: false },
    { value: 2.5, ok: false },
    { value: '-3', ok: false },
    { value: 'many', ok: false },
  ])('a metric value $value (unknown type) → ok: $ok', async ({ value, ok }) => {
    const node = freshNode();
    const source = '/sync/custom-status/counter';
    const publisherId = await registerPublisher(`${node}${source}`);
    const event = eventFor({
      node,
      source,
      type: 'event.sync.custom-status.counter-change',
      value,
      valueType: 'metric',
      dataType: 'metric',
    });

    const response = await api.publish(publisherId, event);

    if (ok) expect(response.status, response.rawBody).toBe(202);
    else expectProblem(response, 400, 'data.values[0].value');
  });

  it('accepts an unknown type of the right form, with any enumeration value, and other value types unchecked', async () => {
    const node = freshNode();
    const source = '/sync/custom-status/custom-state';
    const address = `${node}${source}`;
    const publisherId = await registerPublisher(address);
    const event = {
      ...eventFor({ node, source, type: 'event.sync.custom-status.custom-state-change', value: 'ANYTHING' }),
    };
    event.data.values.push({
      data_type: 'notification',
      ResourceAddress: address,
      value_type: 'string',
      value: { nested: ['as', 'written'] } as unknown as string,
    });

    const response = await api.publish(publisherId, event);

    expect(response.status, response.rawBody).toBe(202);
    expect(await currentState(address)).toEqual(event);
  });

  it('answers 413 for an event body of 64 KiB + 1 byte, and accepts one of exactly 64 KiB', async () => {
    const { node, publisherId, address } = await lockStatePublisher({ withState: false });
    const event = lockStateEvent({ node });

    expectProblem(await api.publish(publisherId, bodyOfBytes(event, MAX_BODY_BYTES + 1)), 413);
    expectProblem(await api.currentState(address), 404);

    expect((await api.publish(publisherId, bodyOfBytes(event, MAX_BODY_BYTES))).status).toBe(202);
    expect(await currentState(address)).toEqual(event);
  });
});
