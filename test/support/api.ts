/**
 * Shared helpers for the tests that go through the route handlers: one function per route that
 * builds the HTTP API v2 event API Gateway would send and invokes the real handler, plus
 * assertions on what a client sees. Importing it starts nothing: suites bring their own delivery.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { handler as createPublisherHandler } from '../../functions/http/create-publisher';
import { handler as createSubscriptionHandler } from '../../functions/http/create-subscription';
import { handler as deleteAllSubscriptionsHandler } from '../../functions/http/delete-all-subscriptions';
import { handler as deletePublisherHandler } from '../../functions/http/delete-publisher';
import { handler as deleteSubscriptionHandler } from '../../functions/http/delete-subscription';
import { handler as getCurrentStateHandler } from '../../functions/http/get-current-state';
import { handler as getPublisherHandler } from '../../functions/http/get-publisher';
import { handler as getSubscriptionHandler } from '../../functions/http/get-subscription';
import { handler as healthHandler } from '../../functions/http/health';
import { handler as listDeadLettersHandler } from '../../functions/http/list-dead-letters';
import { handler as listDeliveriesHandler } from '../../functions/http/list-deliveries';
import { handler as listPublishersHandler } from '../../functions/http/list-publishers';
import { handler as listSubscriptionsHandler } from '../../functions/http/list-subscriptions';
import { handler as notFoundHandler } from '../../functions/http/not-found';
import { handler as openApiHandler } from '../../functions/http/openapi';
import { handler as publishEventHandler } from '../../functions/http/publish-event';
import { handler as redriveDeadLettersHandler } from '../../functions/http/redrive-dead-letters';
import { handler as rotateSecretHandler } from '../../functions/http/rotate-subscription-secret';
import { startConsumer } from './consumer';
import { lockStateEvent, uniqueCluster } from './fixtures';
import { httpApiEvent, invoke } from './http-event';

export { BASE_PATH } from '../../lib/http/base-path';

import { BASE_PATH } from '../../lib/http/base-path';
/** What `UriLocation` starts with for the default `host` / `x-forwarded-proto` of httpApiEvent. */
export const PUBLIC_BASE = `https://notify.example.com${BASE_PATH}`;
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const MAX_BODY_BYTES = 64 * 1024;

export const LOCK_STATE = '/sync/ptp-status/lock-state';
export const SYNC_STATE = '/sync/sync-status/sync-state';
export const CLOCK_CLASS = '/sync/ptp-status/clock-class';

export type ApiResponse = Awaited<ReturnType<typeof invoke>>;
type Handler = Parameters<typeof invoke>[0];
type EventOptions = Parameters<typeof httpApiEvent>[0];

export interface SubscriptionInfo {
  SubscriptionId: string;
  UriLocation: string;
  ResourceAddress: string;
  EndpointUri: string;
}

export type NotificationEvent = ReturnType<typeof lockStateEvent>;

export interface RequestOptions {
  headers?: Record<string, string>;
  isBase64Encoded?: boolean;
}

function call(handler: unknown, options: EventOptions): Promise<ApiResponse> {
  return invoke(handler as Handler, httpApiEvent(options));
}

/** One function per route, each building the event exactly as API Gateway routes it. */
export const api = {
  createSubscription: (body: unknown, options: RequestOptions = {}) =>
    call(createSubscriptionHandler, { method: 'POST', path: '/subscriptions', body, ...options }),
  listSubscriptions: (query = '') =>
    call(listSubscriptionsHandler, {
      method: 'GET',
      path: `/subscriptions${query}`,
      routeKey: `GET ${BASE_PATH}/subscriptions`,
    }),
  getSubscription: (id: string) =>
    call(getSubscriptionHandler, {
      method: 'GET',
      path: `/subscriptions/${id}`,
      routeKey: `GET ${BASE_PATH}/subscriptions/{subscriptionId}`,
      pathParameters: { subscriptionId: id },
    }),
  deleteSubscription: (id: string, options: RequestOptions = {}) =>
    call(deleteSubscriptionHandler, {
      method: 'DELETE',
      path: `/subscriptions/${id}`,
      routeKey: `DELETE ${BASE_PATH}/subscriptions/{subscriptionId}`,
      pathParameters: { subscriptionId: id },
      ...options,
    }),
  deleteAllSubscriptions: () =>
    call(deleteAllSubscriptionsHandler, {
      method: 'DELETE',
      path: '/subscriptions',
      routeKey: `DELETE ${BASE_PATH}/subscriptions`,
    }),
  /** `GET {base}{path}` through the catch-all route; `path` is written as a client would put it in the URL. */
  getPath: (path: string) =>
    call(getCurrentStateHandler, {
      method: 'GET',
      path,
      routeKey: `GET ${BASE_PATH}/{proxy+}`,
      pathParameters: { proxy: path.replace(/^\//, '').split('?')[0] ?? '' },
    }),
  currentState: (address: string) => api.getPath(`${address}/CurrentState`),
  listPublishers: (query = '') =>
    call(listPublishersHandler, {
      method: 'GET',
      path: `/publishers${query}`,
      routeKey: `GET ${BASE_PATH}/publishers`,
    }),
  createPublisher: (body: unknown, options: RequestOptions = {}) =>
    call(createPublisherHandler, { method: 'POST', path: '/publishers', body, ...options }),
  getPublisher: (id: string) =>
    call(getPublisherHandler, {
      method: 'GET',
      path: `/publishers/${id}`,
      routeKey: `GET ${BASE_PATH}/publishers/{publisherId}`,
      pathParameters: { publisherId: id },
    }),
  deletePublisher: (id: string, options: RequestOptions = {}) =>
    call(deletePublisherHandler, {
      method: 'DELETE',
      path: `/publishers/${id}`,
      routeKey: `DELETE ${BASE_PATH}/publishers/{publisherId}`,
      pathParameters: { publisherId: id },
      ...options,
    }),
  publish: (publisherId: string, body: unknown, options: RequestOptions = {}) =>
    call(publishEventHandler, {
      method: 'POST',
      path: `/publishers/${publisherId}/events`,
      routeKey: `POST ${BASE_PATH}/publishers/{publisherId}/events`,
      pathParameters: { publisherId },
      body,
      ...options,
    }),
  rotateSecret: (id: string, body?: unknown) =>
    call(rotateSecretHandler, {
      method: 'POST',
      path: `/subscriptions/${id}/secret/rotate`,
      routeKey: `POST ${BASE_PATH}/subscriptions/{subscriptionId}/secret/rotate`,
      pathParameters: { subscriptionId: id },
      ...(body === undefined ? {} : { body }),
    }),
  listDeliveries: (id: string, query = '') =>
    call(listDeliveriesHandler, {
      method: 'GET',
      path: `/subscriptions/${id}/deliveries${query}`,
      routeKey: `GET ${BASE_PATH}/subscriptions/{subscriptionId}/deliveries`,
      pathParameters: { subscriptionId: id },
    }),
  listDeadLetters: (id: string, query = '') =>
    call(listDeadLettersHandler, {
      method: 'GET',
      path: `/subscriptions/${id}/dead-letters${query}`,
      routeKey: `GET ${BASE_PATH}/subscriptions/{subscriptionId}/dead-letters`,
      pathParameters: { subscriptionId: id },
    }),
  redriveDeadLetters: (id: string) =>
    call(redriveDeadLettersHandler, {
      method: 'POST',
      path: `/subscriptions/${id}/dead-letters/redrive`,
      routeKey: `POST ${BASE_PATH}/subscriptions/{subscriptionId}/dead-letters/redrive`,
      pathParameters: { subscriptionId: id },
    }),
  /** A request no route of the HTTP API matches, as its `$default` route receives it. */
  unrouted: (method: string, path: string) => call(notFoundHandler, { method, path, routeKey: '$default' }),
  openApi: () =>
    call(openApiHandler, { method: 'GET', path: '/openapi.json', routeKey: `GET ${BASE_PATH}/openapi.json` }),
  health: () => call(healthHandler, { method: 'GET', path: '/health', routeKey: `GET ${BASE_PATH}/health` }),
};

const TITLES: Record<number, readonly string[]> = {
  400: ['Bad Request'],
  404: ['Not Found'],
  401: ['Unauthorized'],
  405: ['Method Not Allowed'],
  403: ['Forbidden'],
  409: ['Conflict'],
  429: ['Too Many Requests'],
  413: ['Payload Too Large', 'Content Too Large'],
  503: ['Service Unavailable'],
};

/**
 * Asserts an RFC 9457 problem document: the status, `application/problem+json`, exactly
 * `{type: 'about:blank', title, status, detail}` with the reason phrase as title, a detail a person
 * can act on (matching `detail` when given), and nothing that looks like a stack trace or internals.
 */
export function expectProblem(response: ApiResponse, status: number, detail?: RegExp | string) {
  expect(response.status, response.rawBody).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json(;|$)/);
  const body = response.body as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['detail', 'status', 'title', 'type']);
  expect(body.type).toBe('about:blank');
  expect(body.status).toBe(status);
  expect(TITLES[status] ?? [], `title for ${status}`).toContain(body.title);
  expect(typeof body.detail).toBe('string');
  const text = body.detail as string;
  expect(text.trim().length).toBeGreaterThan(10);
  expect(response.rawBody).not.toMatch(/\n\s+at |\bat .+:\d+:\d+|node_modules|\/work\/|\.ts:\d|stack/i);
  expect(response.rawBody).not.toMatch(/ValidationException|TypeError|ReferenceError|undefined is not/);
  if (typeof detail === 'string') expect(text).toContain(detail);
  else if (detail) expect(text).toMatch(detail);
  return body as { type: string; title: string; status: number; detail: string };
}

/** Asserts a 2xx JSON response and returns its body. */
export function expectJson<T>(response: ApiResponse, status: number): T {
  expect(response.status, response.rawBody).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json(;|$)/);
  return response.body as T;
}

/**
 * Asserts a SubscriptionInfo as POST /subscriptions or POST /publishers answers it: exactly the
 * four members, a UUID v4 SubscriptionId, UriLocation `{PUBLIC_BASE}/{collection}/{SubscriptionId}`
 * (the default host of httpApiEvent), and ResourceAddress and EndpointUri when `expected` gives them.
 */
export function expectSubscriptionInfo(
  body: unknown,
  expected: { collection: 'subscriptions' | 'publishers'; ResourceAddress?: string; EndpointUri?: string },
): SubscriptionInfo {
  const info = body as SubscriptionInfo;
  expect(Object.keys(info).sort()).toEqual([
    'EndpointUri',
    'ResourceAddress',
    'SubscriptionId',
    'UriLocation',
  ]);
  expect(info.SubscriptionId).toMatch(UUID_V4);
  expect(info.UriLocation).toBe(`${PUBLIC_BASE}/${expected.collection}/${info.SubscriptionId}`);
  if (expected.ResourceAddress !== undefined) expect(info.ResourceAddress).toBe(expected.ResourceAddress);
  if (expected.EndpointUri !== undefined) expect(info.EndpointUri).toBe(expected.EndpointUri);
  return info;
}

export const SIGNING_SECRET = /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/;

/**
 * A 201 of POST /subscriptions: the SubscriptionInfo plus, this once, `SigningSecret`. Returns the
 * info without the secret (what GET and lists answer); `signingSecretOf` reads the secret.
 */
export function expectSubscribed(response: ApiResponse): SubscriptionInfo {
  const { SigningSecret, ...info } = expectJson<SubscriptionInfo & { SigningSecret?: unknown }>(
    response,
    201,
  );
  expect(SigningSecret).toMatch(SIGNING_SECRET);
  expect(response.headers.location).toBe(info.UriLocation);
  return info;
}

export function signingSecretOf(response: ApiResponse): string {
  const secret = (response.body as { SigningSecret?: unknown }).SigningSecret;
  expect(secret).toMatch(SIGNING_SECRET);
  return secret as string;
}

/** A 204: no body at all. */
export function expectNoContent(response: ApiResponse) {
  expect(response.status, response.rawBody).toBe(204);
  expect(response.rawBody).toBe('');
}

/** `/<fresh cluster>/site-1/node-1`, the node part of every address a test uses. */
export function freshNode(): string {
  return `/${uniqueCluster()}/site-1/node-1`;
}

export async function registerPublisher(address: string, endpointUri?: string): Promise<string> {
  const response = await api.createPublisher({
    ResourceAddress: address,
    ...(endpointUri === undefined ? {} : { EndpointUri: endpointUri }),
  });
  return expectJson<SubscriptionInfo>(response, 201).SubscriptionId;
}

/** Publishes an event and asserts it was accepted (202). */
export async function publishAccepted(publisherId: string, event: unknown): Promise<void> {
  const response = await api.publish(publisherId, event);
  expect(response.status, response.rawBody).toBe(202);
}

/** A publisher at `<node>/sync/ptp-status/lock-state`, with a current state unless `withState` is false. */
export async function lockStatePublisher(
  options: { node?: string; withState?: boolean; time?: string } = {},
) {
  const node = options.node ?? freshNode();
  const address = `${node}${LOCK_STATE}`;
  const publisherId = await registerPublisher(address);
  let event: NotificationEvent | undefined;
  if (options.withState ?? true) {
    event = lockStateEvent({ node, ...(options.time === undefined ? {} : { time: options.time }) });
    await publishAccepted(publisherId, event);
  }
  return { node, address, publisherId, event };
}

/** An event of any source/type with one value, in the shape of lockStateEvent. */
export function eventFor(options: {
  node: string;
  source: string;
  type: string;
  value: unknown;
  valueType?: string;
  dataType?: 'notification' | 'metric';
  time?: string;
  id?: string;
}) {
  return {
    id: options.id ?? randomUUID(),
    specversion: '1.0',
    source: options.source,
    type: options.type,
    time: options.time ?? new Date().toISOString(),
    data: {
      version: '1.0',
      values: [
        {
          data_type: options.dataType ?? 'notification',
          ResourceAddress: `${options.node}${options.source}`,
          value_type: options.valueType ?? 'enumeration',
          value: options.value,
        },
      ],
    },
  };
}

/** A URL on 127.0.0.1 where nothing listens (a consumer started and closed again). */
export async function closedPortUrl(): Promise<string> {
  const consumer = await startConsumer();
  await consumer.close();
  return consumer.url;
}

/** A JSON object body of exactly `bytes` UTF-8 bytes: `base` plus an unknown `padding` member. */
export function bodyOfBytes(base: Record<string, unknown>, bytes: number, fill = 'x'): string {
  const empty = JSON.stringify({ ...base, padding: '' });
  const missing = bytes - Buffer.byteLength(empty, 'utf8');
  const fillBytes = Buffer.byteLength(fill, 'utf8');
  expect(missing % fillBytes).toBe(0);
  const body = JSON.stringify({ ...base, padding: fill.repeat(missing / fillBytes) });
  expect(Buffer.byteLength(body, 'utf8')).toBe(bytes);
  return body;
}
