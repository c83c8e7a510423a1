/** The few API calls the delivery tests make, through the real route handlers. */
import { expect } from 'vitest';
import { handler as createPublisher } from '../../functions/create-publisher';
import { handler as createSubscription } from '../../functions/create-subscription';
import { handler as deleteSubscription } from '../../functions/delete-subscription';
import { handler as getSubscription } from '../../functions/get-subscription';
import { handler as publishEvent } from '../../functions/publish-event';
import { uniqueCluster } from '../support/fixtures';
import { httpApiEvent, invoke } from '../support/http-event';

type Handler = Parameters<typeof invoke>[0];
const call = (handler: unknown, options: Parameters<typeof httpApiEvent>[0]) =>
  invoke(handler as Handler, httpApiEvent(options));

export const LOCK_STATE = '/sync/ptp-status/lock-state';
export const CLOCK_CLASS = '/sync/ptp-status/clock-class';
export const SYNC_STATE = '/sync/sync-status/sync-state';

/** A node address of its own: `/<cluster>/site-1/node-1`. */
export function freshNode(): string {
  return `/${uniqueCluster()}/site-1/node-1`;
}

export async function registerPublisher(address: string): Promise<string> {
  const response = await call(createPublisher, {
    method: 'POST',
    path: '/publishers',
    body: { ResourceAddress: address },
  });
  expect(response.status).toBe(201);
  return (response.body as { SubscriptionId: string }).SubscriptionId;
}

export async function subscribe(address: string, endpointUri: string): Promise<string> {
  const response = await call(createSubscription, {
    method: 'POST',
    path: '/subscriptions',
    body: { ResourceAddress: address, EndpointUri: endpointUri },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return (response.body as { SubscriptionId: string }).SubscriptionId;
}

export async function publish(publisherId: string, event: unknown) {
  return call(publishEvent, {
    method: 'POST',
    path: `/publishers/${publisherId}/events`,
    pathParameters: { publisherId },
    body: event,
  });
}

export async function publishAccepted(publisherId: string, event: unknown): Promise<void> {
  const response = await publish(publisherId, event);
  expect(response.status, JSON.stringify(response.body)).toBe(202);
}

export async function subscriptionStatus(id: string): Promise<number> {
  const response = await call(getSubscription, {
    method: 'GET',
    path: `/subscriptions/${id}`,
    pathParameters: { subscriptionId: id },
  });
  return response.status;
}

export async function unsubscribe(id: string): Promise<void> {
  const response = await call(deleteSubscription, {
    method: 'DELETE',
    path: `/subscriptions/${id}`,
    pathParameters: { subscriptionId: id },
  });
  expect(response.status).toBe(204);
}

/** A catalogue event of the given source for the publisher at `address`. */
export function eventAt(
  address: string,
  source: string,
  value: string | number,
  time = new Date().toISOString(),
) {
  const types: Record<string, [string, string, string]> = {
    [LOCK_STATE]: ['event.sync.ptp-status.ptp-state-change', 'notification', 'enumeration'],
    [SYNC_STATE]: ['event.sync.sync-status.synchronization-state-change', 'notification', 'enumeration'],
    [CLOCK_CLASS]: ['event.sync.ptp-status.ptp-clock-class-change', 'metric', 'metric'],
  };
  const [type, dataType, valueType] = types[source] ?? ['event.test.x.y', 'notification', 'enumeration'];
  return {
    id: crypto.randomUUID(),
    specversion: '1.0',
    source,
    type,
    time,
    data: {
      version: '1.0',
      values: [{ data_type: dataType, ResourceAddress: address, value_type: valueType, value }],
    },
  };
}
