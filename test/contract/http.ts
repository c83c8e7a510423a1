/**
 * The contract suite's HTTP side (docs/testing.md): one request to a host's API, held to
 * lib/http/openapi.json, and the checks every host's answers share.
 */
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import { BASE_PATH as API_PATH } from '../../lib/http/base-path';
import type { ReceivedNotification } from '../support/consumer';
import { bodyText } from '../support/http-event';
import { assertDocumented } from '../support/openapi';

export interface Reply {
  status: number;
  headers: Headers;
  raw: string;
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON, inspected by the assertions
  body: any;
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Why the reply need not be one the document describes; unset, it must be. */
  undocumented?: string;
}

/**
 * One request to the API at `base`; `path` is relative to the base path. Redirects are never
 * followed. The reply must be one lib/http/openapi.json describes, unless `undocumented` says why not.
 */
export async function callApi(
  base: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Reply> {
  const body = bodyText(options.body);
  const response = await fetch(`${base}${path}`, {
    method,
    redirect: 'manual',
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body,
    signal: AbortSignal.timeout(20_000),
  });
  const raw = await response.text();
  const type = response.headers.get('content-type') ?? '';
  if (!options.undocumented) {
    const headers = Object.fromEntries(response.headers.entries());
    assertDocumented(method, `${API_PATH}${path}`, { status: response.status, headers, rawBody: raw });
  }
  return {
    status: response.status,
    headers: response.headers,
    raw,
    body: /json/.test(type) && raw ? JSON.parse(raw) : raw,
  };
}

/** An RFC 9457 problem document with this status, saying what is wrong, with no stack trace. */
export function expectProblem(reply: Reply, status: number): void {
  expect(reply.status, reply.raw).toBe(status);
  expect(reply.headers.get('content-type') ?? '').toMatch(/^application\/problem\+json/);
  expect(reply.body).toMatchObject({ type: 'about:blank', status });
  expect(typeof reply.body.title).toBe('string');
  expect(typeof reply.body.detail).toBe('string');
  expect(reply.body.detail.length).toBeGreaterThan(0);
  expect(reply.raw).not.toMatch(/\bat .*\.(js|ts):\d+/); // no stack traces
}

/** True when serverless offline answered with its own Lambda error (time-out, crash) instead of the handler's reply. */
export function isLambdaError(reply: Reply): boolean {
  return typeof reply.body === 'object' && reply.body !== null && 'errorType' in reply.body;
}

/** What a consumer does: standardwebhooks' verify over the raw body and the webhook headers. */
export function verifiedBody(secret: string, notification: ReceivedNotification | undefined): unknown {
  if (!notification) throw new Error('no notification');
  return new Webhook(secret).verify(notification.raw, {
    'webhook-id': String(notification.headers['webhook-id']),
    'webhook-timestamp': String(notification.headers['webhook-timestamp']),
    'webhook-signature': String(notification.headers['webhook-signature']),
  });
}
