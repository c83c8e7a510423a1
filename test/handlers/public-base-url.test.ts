/**
 * UriLocation is taken from the request, or from a configured public base URL
 * when one is set. Configuration is read on first use, so fresh copies of the handlers are imported
 * with PUBLIC_BASE_URL set.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { httpApiEvent, invoke } from '../support/http-event';
import { SINK } from '../support/sink';
import { freshNode, LOCK_STATE, type SubscriptionInfo, UUID_V4 } from './api';

type Handler = Parameters<typeof invoke>[0];

describe('with PUBLIC_BASE_URL configured', () => {
  const saved = process.env.PUBLIC_BASE_URL;
  let createPublisher: Handler;
  let createSubscription: Handler;

  beforeAll(async () => {
    process.env.PUBLIC_BASE_URL = 'https://notifications.operator.example';
    vi.resetModules();
    createPublisher = (await import('../../functions/http/create-publisher')).handler as Handler;
    createSubscription = (await import('../../functions/http/create-subscription')).handler as Handler;
  });

  afterAll(() => {
    if (saved === undefined) delete process.env.PUBLIC_BASE_URL;
    else process.env.PUBLIC_BASE_URL = saved;
    vi.resetModules();
  });

  it('builds UriLocation and Location from it, whatever the request host', async () => {
    const address = `${freshNode()}${LOCK_STATE}`;
    const headers = { host: 'internal-alb.local', 'x-forwarded-proto': 'http' };

    const publisher = await invoke(
      createPublisher,
      httpApiEvent({ method: 'POST', path: '/publishers', body: { ResourceAddress: address }, headers }),
    );
    const subscription = await invoke(
      createSubscription,
      httpApiEvent({
        method: 'POST',
        path: '/subscriptions',
        body: { ResourceAddress: address, EndpointUri: `${SINK}/events` },
        headers,
      }),
    );

    expect(publisher.status, publisher.rawBody).toBe(201);
    expect(subscription.status, subscription.rawBody).toBe(201);
    const info = subscription.body as SubscriptionInfo;
    expect(info.SubscriptionId).toMatch(UUID_V4);
    expect(info.UriLocation).toBe(
      `https://notifications.operator.example/api/ocloudNotifications/v2/subscriptions/${info.SubscriptionId}`,
    );
    expect(subscription.headers.location).toBe(info.UriLocation);
    const record = publisher.body as SubscriptionInfo;
    expect(record.UriLocation).toBe(
      `https://notifications.operator.example/api/ocloudNotifications/v2/publishers/${record.SubscriptionId}`,
    );
  });
});
