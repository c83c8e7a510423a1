import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler as createPublisher } from '../../functions/create-publisher';
import { handler as createSubscription } from '../../functions/create-subscription';
import { handler as deletePublisher } from '../../functions/delete-publisher';
import { handler as deleteSubscription } from '../../functions/delete-subscription';
import { handler as emitGauges } from '../../functions/emit-gauges';
import { handler as publishEvent } from '../../functions/publish-event';
import { captureEmf, metricValues } from '../support/emf';
import { lockStateEvent, uniqueCluster } from '../support/fixtures';
import { httpApiEvent, invoke, lambdaContext } from '../support/http-event';
import { useQueuedDelivery } from '../support/queued-delivery';

useQueuedDelivery();

const DIMENSIONS = [['Service', 'Stage']];
const DIMENSION_VALUES = { Service: 'ocloud-notifications', Stage: 'local' };

async function register(address: string): Promise<string> {
  const response = await invoke(
    createPublisher,
    httpApiEvent({ method: 'POST', path: '/publishers', body: { ResourceAddress: address } }),
  );
  expect(response.status).toBe(201);
  return (response.body as { SubscriptionId: string }).SubscriptionId;
}

async function gauges() {
  const records = await captureEmf(() => emitGauges({}, lambdaContext() as Context));
  return {
    subscriptions: metricValues(records, 'ActiveSubscriptions'),
    publishers: metricValues(records, 'ActivePublishers'),
  };
}

describe('embedded metrics', () => {
  it('counts an accepted event as EventsPublished, and a repeat not at all', async () => {
    const node = `/${uniqueCluster()}/site-1/node-1`;
    const publisherId = await register(`${node}/sync/ptp-status/lock-state`);
    const event = lockStateEvent({ node });
    const publish = () =>
      invoke(
        publishEvent,
        httpApiEvent({
          method: 'POST',
          path: `/publishers/${publisherId}/events`,
          pathParameters: { publisherId },
          body: event,
        }),
      );

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
    const records = await captureEmf(() =>
      invoke(
        createPublisher,
        httpApiEvent({ method: 'POST', path: '/publishers', body: { ResourceAddress: 'bad' } }),
      ),
    );
    expect(records).toEqual([]);
  });

  it('emits exact ActiveSubscriptions and ActivePublishers gauges after concurrent creates and deletes', async () => {
    const before = await gauges();
    const subscriptionsBefore = Number(before.subscriptions[0]?.value);
    const publishersBefore = Number(before.publishers[0]?.value);
    const cluster = uniqueCluster();

    const publisherIds = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        register(`/${cluster}/site-1/node-${i}/sync/ptp-status/lock-state`),
      ),
    );
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        invoke(
          createSubscription,
          httpApiEvent({
            method: 'POST',
            path: '/subscriptions',
            // Ten distinct pairs, each asked for three times at once: ten 201s, twenty 409s.
            body: { ResourceAddress: `/${cluster}/site-1`, EndpointUri: `http://127.0.0.1:9/${i % 10}` },
          }),
        ),
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
      ...[...ids.slice(0, 4), ...ids.slice(0, 4)].map((id) =>
        invoke(
          deleteSubscription,
          httpApiEvent({
            method: 'DELETE',
            path: `/subscriptions/${id}`,
            pathParameters: { subscriptionId: id },
          }),
        ),
      ),
      ...[...publisherIds.slice(0, 4), ...publisherIds.slice(0, 4)].map((id) =>
        invoke(
          deletePublisher,
          httpApiEvent({ method: 'DELETE', path: `/publishers/${id}`, pathParameters: { publisherId: id } }),
        ),
      ),
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
});
