import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler as emitGauges } from '../../functions/schedule/emit-gauges';
import { createLocalConsole } from '../../scripts/status-line';
import { api, freshNode, LOCK_STATE, registerPublisher } from '../support/api';
import { startConsumer } from '../support/consumer';
import { captureEmf, emfProblems, metricValues } from '../support/emf';
import { lockStateEvent, uniqueCluster } from '../support/fixtures';
import { lambdaContext } from '../support/http-event';
import { waitForQueueIdle } from '../support/queue-idle';
import { useQueuedDelivery } from '../support/queued-delivery';
import { SINK } from '../support/sink';

useQueuedDelivery();

const DIMENSIONS = [['Service', 'Stage']];
const DIMENSION_VALUES = { Service: 'ocloud-notifications', Stage: 'local' };

async function gauges() {
  const records = await captureEmf(() => emitGauges({}, lambdaContext() as Context));
  return {
    subscriptions: metricValues(records, 'ActiveSubscriptions'),
    publishers: metricValues(records, 'ActivePublishers'),
  };
}

describe('embedded metrics', () => {
  it('counts an accepted event as EventsPublished, and a repeat not at all', async () => {
    const node = freshNode();
    const publisherId = await registerPublisher(`${node}${LOCK_STATE}`);
    const event = lockStateEvent({ node });
    const publish = () => api.publish(publisherId, event);

    const accepted = await captureEmf(publish);
    expect(metricValues(accepted, 'EventsPublished')).toEqual([
      {
        namespace: 'OCloudNotifications',
        unit: 'Count',
        dimensions: DIMENSIONS,
        dimensionValues: DIMENSION_VALUES,
        value: 1,
      },
    ]);
    const repeated = await captureEmf(publish);
    expect(metricValues(repeated, 'EventsPublished')).toEqual([]);
  });

  it('prints nothing for a request that records no metric', async () => {
    const records = await captureEmf(() => api.createPublisher({ ResourceAddress: 'bad' }));
    expect(records).toEqual([]);
  });

  it('emits exact ActiveSubscriptions and ActivePublishers gauges after concurrent creates and deletes', async () => {
    const before = await gauges();
    const subscriptionsBefore = Number(before.subscriptions[0]?.value);
    const publishersBefore = Number(before.publishers[0]?.value);
    const cluster = uniqueCluster();

    const publisherIds = await Promise.all(
      Array.from({ length: 12 }, (_, i) => registerPublisher(`/${cluster}/site-1/node-${i}${LOCK_STATE}`)),
    );
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        // Ten distinct pairs, each asked for three times at once: ten 201s, twenty 409s.
        api.createSubscription({
          ResourceAddress: `/${cluster}/site-1`,
          EndpointUri: `${SINK}/${i % 10}`,
        }),
      ),
    );
    expect(created.filter((r) => r.status === 201)).toHaveLength(10);
    expect(created.filter((r) => r.status === 409)).toHaveLength(20);
    const ids = created
      .filter((r) => r.status === 201)
      .map((r) => (r.body as { SubscriptionId: string }).SubscriptionId);

    // Each subscription deleted twice at once and four publishers deleted twice at once: one of
    // each pair succeeds.
    const deletes = await Promise.all([
      ...[...ids.slice(0, 4), ...ids.slice(0, 4)].map((id) => api.deleteSubscription(id)),
      ...[...publisherIds.slice(0, 4), ...publisherIds.slice(0, 4)].map((id) => api.deletePublisher(id)),
    ]);
    expect(deletes.filter((r) => r.status === 204)).toHaveLength(8);
    expect(deletes.filter((r) => r.status === 404)).toHaveLength(8);

    const after = await gauges();
    expect(after.subscriptions).toEqual([
      {
        namespace: 'OCloudNotifications',
        unit: 'Count',
        dimensions: DIMENSIONS,
        dimensionValues: DIMENSION_VALUES,
        value: subscriptionsBefore + 6,
      },
    ]);
    expect(after.publishers).toEqual([
      {
        namespace: 'OCloudNotifications',
        unit: 'Count',
        dimensions: DIMENSIONS,
        dimensionValues: DIMENSION_VALUES,
        value: publishersBefore + 8,
      },
    ]);
  });

  it('tags every record with the request id of the invocation', async () => {
    const context = lambdaContext();
    const records = await captureEmf(() => emitGauges({}, context as Context));
    expect(records).toHaveLength(1);
    expect(records[0]?.RequestId).toBe(context.awsRequestId);
  });

  it('prints valid EMF records from the deliver function: deliveries, their latency, failed attempts and dead letters', async () => {
    const node = freshNode();
    const accepting = await startConsumer([{ status: 204 }]);
    const refusing = await startConsumer([{ status: 400 }]);
    try {
      const publisherId = await registerPublisher(`${node}${LOCK_STATE}`);
      for (const consumer of [accepting, refusing]) {
        const subscribed = await api.createSubscription({ ResourceAddress: node, EndpointUri: consumer.url });
        expect(subscribed.status).toBe(201);
      }
      // captureEmf checks every line against the EMF specification's schema.
      const records = await captureEmf(async () => {
        await api.publish(publisherId, lockStateEvent({ node }));
        await Promise.all([accepting.waitFor(1), refusing.waitFor(1)]);
        await waitForQueueIdle();
      });
      const printed = (name: string) =>
        metricValues(records, name).map(({ namespace, unit, dimensions, dimensionValues }) => ({
          namespace,
          unit,
          dimensions,
          dimensionValues,
        }));
      const expected = (unit: string) => [
        { namespace: 'OCloudNotifications', unit, dimensions: DIMENSIONS, dimensionValues: DIMENSION_VALUES },
      ];
      expect(printed('EventsPublished')).toEqual(expected('Count'));
      expect(printed('NotificationsDelivered')).toEqual(expected('Count'));
      expect(printed('DeliveryLatency')).toEqual(expected('Milliseconds'));
      expect(printed('NotificationDeliveryFailures')).toEqual(expected('Count'));
      expect(printed('NotificationsDeadLettered')).toEqual(expected('Count'));
      for (const record of records) expect(typeof record.RequestId).toBe('string');
      // npm start's status line counts from these very records.
      const local = createLocalConsole({ print: () => undefined });
      for (const record of records) local.line(JSON.stringify(record));
      expect(local.counts).toEqual({ published: 1, delivered: 1, failed: 1, deadLettered: 1 });
    } finally {
      await Promise.all([accepting.close(), refusing.close()]);
    }
  });

  it('holds records to the EMF specification: a missing dimension member, an unknown unit or a text value is refused', () => {
    const record = {
      _aws: {
        Timestamp: 1_700_000_000_000,
        CloudWatchMetrics: [
          {
            Namespace: 'OCloudNotifications',
            Dimensions: [['Service', 'Stage']],
            Metrics: [{ Name: 'X', Unit: 'Count' }],
          },
        ],
      },
      Service: 'ocloud-notifications',
      Stage: 'local',
      X: 1,
    };
    expect(emfProblems(JSON.stringify(record))).toEqual([]);
    expect(emfProblems(JSON.stringify({ ...record, Stage: undefined }))).not.toEqual([]);
    expect(emfProblems(JSON.stringify({ ...record, X: '1' }))).not.toEqual([]);
    const directive = record._aws.CloudWatchMetrics[0];
    const badUnit = {
      ...record,
      _aws: {
        ...record._aws,
        CloudWatchMetrics: [{ ...directive, Metrics: [{ Name: 'X', Unit: 'Things' }] }],
      },
    };
    expect(emfProblems(JSON.stringify(badUnit))).not.toEqual([]);
  });
});
