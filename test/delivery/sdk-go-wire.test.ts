/**
 * What Red Hat's consumer library reads: every catalogue event, published as Red Hat's node agents
 * shape it (cloud-event-proxy plugins/ptp_operator: interface-level values under the node) but with
 * the numbers a producer may write as JSON numbers and the clock class as `metric`, goes through
 * the real paths to a consumer on 127.0.0.1 (initial notifications, fan-out delivery) and through
 * CurrentState, and every body is decoded by the sdk-go oracle (test/support/sdk-go.ts). So are
 * states stored, and messages queued, in the form of before.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { config } from '../../lib/config';
import { publisherIdFor } from '../../lib/domain/ids';
import { documentClient } from '../../lib/store/dynamo-client';
import { keys } from '../../lib/store/keys';
import { api, expectJson, expectProblem, freshNode, registerPublisher } from '../support/api';
import { type Consumer, trackConsumers } from '../support/consumer';
import { readNotification } from '../support/notifications';
import { useQueuedDelivery } from '../support/queued-delivery';
import { decodeLikeSdkGo, type SdkGoDataValue } from '../support/sdk-go';

useQueuedDelivery();
const startConsumer = trackConsumers();

interface CatalogueCase {
  readonly type: string;
  readonly source: string;
  /** The values as the producer writes them, for a node. */
  readonly values: (node: string) => Array<Record<string, unknown>>;
  /** What sdk-go decodes from the delivered event. */
  readonly decoded: (node: string) => SdkGoDataValue[];
}

const enumeration = (Resource: string, Value: string): SdkGoDataValue => ({
  Resource,
  DataType: 'notification',
  ValueType: 'enumeration',
  Value,
});
const decimal = (Resource: string, Value: number): SdkGoDataValue => ({
  Resource,
  DataType: 'metric',
  ValueType: 'decimal64.3',
  Value,
});
const state = (ResourceAddress: string, value: string) => ({
  ResourceAddress,
  data_type: 'notification',
  value_type: 'enumeration',
  value,
});
const metric = (ResourceAddress: string, value: number | string, value_type = 'decimal64.3') => ({
  ResourceAddress,
  data_type: 'metric',
  value_type,
  value,
});

/** One event per catalogue type, with the resources cloud-event-proxy's ptp_operator plugin uses. */
const CATALOGUE: readonly CatalogueCase[] = [
  {
    // The overall state at the publisher's own address (ptp_operator_plugin.go, SyncStateChange).
    type: 'event.sync.sync-status.synchronization-state-change',
    source: '/sync/sync-status/sync-state',
    values: (n) => [state(`${n}/sync/sync-status/sync-state`, 'LOCKED')],
    decoded: (n) => [enumeration(`${n}/sync/sync-status/sync-state`, 'LOCKED')],
  },
  {
    // State and offset of the masked interface (GetPTPEventsData for PtpStateChange).
    type: 'event.sync.ptp-status.ptp-state-change',
    source: '/sync/ptp-status/lock-state',
    values: (n) => [state(`${n}/ens5fx/master`, 'HOLDOVER'), metric(`${n}/ens5fx/master`, -3)],
    decoded: (n) => [enumeration(`${n}/ens5fx/master`, 'HOLDOVER'), decimal(`${n}/ens5fx/master`, -3)],
  },
  {
    type: 'event.sync.sync-status.os-clock-sync-state-change',
    source: '/sync/sync-status/os-clock-sync-state',
    values: (n) => [state(`${n}/CLOCK_REALTIME`, 'FREERUN'), metric(`${n}/CLOCK_REALTIME`, 27.125)],
    decoded: (n) => [enumeration(`${n}/CLOCK_REALTIME`, 'FREERUN'), decimal(`${n}/CLOCK_REALTIME`, 27.125)],
  },
  {
    // State, offset and the gpsFix metric below it (GnssStateChange).
    type: 'event.sync.gnss-status.gnss-state-change',
    source: '/sync/gnss-status/gnss-sync-status',
    values: (n) => [
      state(`${n}/ens7fx/master`, 'SYNCHRONIZED'),
      metric(`${n}/ens7fx/master`, 5),
      metric(`${n}/ens7fx/master/gpsFix`, 3),
    ],
    decoded: (n) => [
      enumeration(`${n}/ens7fx/master`, 'SYNCHRONIZED'),
      decimal(`${n}/ens7fx/master`, 5),
      decimal(`${n}/ens7fx/master/gpsFix`, 3),
    ],
  },
  {
    type: 'event.sync.synce-status.synce-state-change',
    source: '/sync/synce-status/lock-state',
    values: (n) => [state(`${n}/synce1/ens2f0`, 'LOCKED')],
    decoded: (n) => [enumeration(`${n}/synce1/ens2f0`, 'LOCKED')],
  },
  {
    // Red Hat writes decimal64.3; a producer of ours may write `metric` and a number.
    type: 'event.sync.ptp-status.ptp-clock-class-change',
    source: '/sync/ptp-status/clock-class',
    values: (n) => [metric(`${n}/ens5fx/CLOCK_CLASS`, 248, 'metric')],
    decoded: (n) => [decimal(`${n}/ens5fx/CLOCK_CLASS`, 248)],
  },
  {
    type: 'event.sync.synce-status.synce-clock-quality-change',
    source: '/sync/synce-status/clock-quality',
    values: (n) => [metric(`${n}/synce1/ens2f0/Ql`, '2', 'metric'), metric(`${n}/synce1/ens2f0/ExtQL`, 255)],
    decoded: (n) => [decimal(`${n}/synce1/ens2f0/Ql`, 2), decimal(`${n}/synce1/ens2f0/ExtQL`, 255)],
  },
];

function eventOf(c: CatalogueCase, node: string, id: string, time: string) {
  return {
    id,
    specversion: '1.0',
    source: c.source,
    type: c.type,
    time,
    data: { version: '1.0', values: c.values(node) },
  };
}

/** Registers a publisher per catalogue type on a fresh node and publishes one event to each. */
async function nodeWithEveryType(time = '2024-06-01T12:00:00.5Z') {
  const node = freshNode();
  const publishers = await Promise.all(
    CATALOGUE.map(async (c) => ({ c, id: await registerPublisher(`${node}${c.source}`) })),
  );
  for (const { c, id } of publishers) {
    const response = await api.publish(id, eventOf(c, node, `${c.source}-1`, time));
    expect(response.status, response.rawBody).toBe(202);
  }
  return { node, publishers };
}

/** Every body decodes with sdk-go's rules to the expected values. */
function expectReadBySdkGo(raw: string, node: string) {
  const decoded = decodeLikeSdkGo(raw);
  const c = CATALOGUE.find((k) => k.type === decoded.Type);
  expect(c, `a catalogue type: ${decoded.Type}`).toBeDefined();
  expect(decoded.Source).toBe(c?.source);
  expect(decoded.Data?.Values).toStrictEqual(c?.decoded(node));
  expect(Number.isFinite(decoded.Time)).toBe(true);
  return decoded;
}

async function subscribeTo(address: string, consumer: Consumer) {
  const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url });
  expect(response.status, response.rawBody).toBe(201);
}

describe('what Red Hat’s sdk-go reads, for every catalogue type', () => {
  it('initial notifications, delivered notifications and CurrentState all decode', async () => {
    const { node, publishers } = await nodeWithEveryType();
    const consumer = await startConsumer();

    // One subscription for the node: an initial notification per publisher's state.
    await subscribeTo(node, consumer);
    const initial = await consumer.waitFor(CATALOGUE.length);
    expect(new Set(initial.map((r) => expectReadBySdkGo(r.raw, node).Type))).toEqual(
      new Set(CATALOGUE.map((c) => c.type)),
    );

    for (const { c, id } of publishers) {
      const response = await api.publish(id, eventOf(c, node, `${c.source}-2`, '2024-06-01T12:00:01.5Z'));
      expect(response.status, response.rawBody).toBe(202);
    }
    const all = await consumer.waitFor(2 * CATALOGUE.length);
    const delivered = all.slice(CATALOGUE.length);
    expect(delivered.map((r) => expectReadBySdkGo(r.raw, node).ID).sort()).toEqual(
      CATALOGUE.map((c) => `${c.source}-2`).sort(),
    );

    for (const c of CATALOGUE) {
      const response = await api.currentState(`${node}${c.source}`);
      expect(response.status, response.rawBody).toBe(200);
      expect(expectReadBySdkGo(response.rawBody, node).ID).toBe(`${c.source}-2`);
    }
  });

  it('a Red Hat-shaped event of another node is refused with a 400 naming the member', async () => {
    const node = freshNode();
    const other = freshNode();
    const c = CATALOGUE[1] as CatalogueCase;
    const id = await registerPublisher(`${node}${c.source}`);
    const event = eventOf(c, node, 'e-1', '2024-06-01T12:00:00Z');
    event.data.values.push(state(`${other}/ens5fx/master`, 'LOCKED'));
    expectProblem(
      await api.publish(id, event),
      400,
      `data.values[2].ResourceAddress "${other}/ens5fx/master" must be on the publisher's node: at or under ${node}`,
    );
  });

  it('states stored in the form of before are served, and sent as initial notifications, in the wire form', async () => {
    const { node } = await nodeWithEveryType();
    // Overwrite each stored state with what an earlier version stored: numbers, `metric`, a lower-case t and z.
    for (const c of CATALOGUE) {
      const before = {
        ...eventOf(c, node, `${c.source}-old`, '2024-06-01t12:00:00.5z'),
        data: { version: '1.0', values: c.values(node) },
      };
      await documentClient().send(
        new UpdateCommand({
          TableName: config().tableName,
          Key: keys.publisherState(publisherIdFor(`${node}${c.source}`)),
          UpdateExpression: 'SET #event = :event',
          ExpressionAttributeNames: { '#event': 'event' },
          ExpressionAttributeValues: { ':event': JSON.stringify(before) },
        }),
      );
      const served = await api.currentState(`${node}${c.source}`);
      expect(expectReadBySdkGo(served.rawBody, node).ID).toBe(`${c.source}-old`);
      expect(expectJson<{ time: string }>(served, 200).time).toBe('2024-06-01T12:00:00.5Z');
    }
    const consumer = await startConsumer();
    await subscribeTo(node, consumer);
    for (const received of await consumer.waitFor(CATALOGUE.length)) {
      expect(expectReadBySdkGo(received.raw, node).ID).toMatch(/-old$/);
    }
  });

  it('a delivery message queued in the form of before is delivered in the wire form', () => {
    const node = freshNode();
    for (const c of CATALOGUE) {
      const before = eventOf(c, node, 'queued', '2024-06-01T12:00:00Z');
      const message = readNotification(
        JSON.stringify({
          kind: 'delivery',
          subscriptionId: 'sub',
          publisherId: 'pub',
          resourceAddress: `${node}${c.source}`,
          event: before,
          acceptedAt: '2024-06-01T12:00:00Z',
          enqueuedAt: '2024-06-01T12:00:00Z',
        }),
      );
      expectReadBySdkGo(JSON.stringify(message.event), node);
    }
  });

  it('the oracle refuses what was delivered before: a number where sdk-go wants a string', () => {
    const node = freshNode();
    const c = CATALOGUE[1] as CatalogueCase;
    expect(() =>
      expectReadBySdkGo(JSON.stringify(eventOf(c, node, 'raw', '2024-06-01T12:00:00Z')), node),
    ).toThrow(/interface \{\} is float64, not string/);
  });
});
