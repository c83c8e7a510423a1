/**
 * The OpenAPI document: served as it is in the repository, describing exactly the API's routes and
 * the notification, and strict enough that the response check of every other test means something.
 */
import { describe, expect, it } from 'vitest';
import { BASE_PATH as BASE } from '../../lib/http/base-path';
import document from '../../lib/http/openapi.json';
import { ROUTES } from '../../lib/http/routes';
import { version as packageVersion } from '../../package.json';
import { openApiProblems } from '../support/openapi';
import { api, expectJson } from './api';

const ID = '3f1c7c1e-9d7a-4c55-8f0e-1b2a3c4d5e6f';
const info = {
  SubscriptionId: ID,
  UriLocation: `https://notify.example.com${BASE}/subscriptions/${ID}`,
  ResourceAddress: '/east-edge-10/site-3/node-7/sync',
  EndpointUri: 'https://consumer.example.com/events',
};
const json = { 'content-type': 'application/json' };
const problem = (status: number) =>
  JSON.stringify({
    type: 'about:blank',
    title: 'Not Found',
    status,
    detail: 'Subscription x does not exist',
  });

describe('GET /openapi.json', () => {
  it('serves the OpenAPI 3.1 document of the repository', async () => {
    const served = expectJson<typeof document>(await api.openApi(), 200);
    expect(served).toEqual(document);
    expect(served.openapi).toBe('3.1.0');
  });

  it("states the package's version, the one source of the version (JSON cannot refer to it)", () => {
    expect(document.info.version).toBe(packageVersion);
  });

  it('describes exactly the routes of the route table, and the notification with its signature headers', () => {
    const described = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => ['get', 'post', 'delete', 'put', 'patch'].includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(described.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    const notification = document.webhooks.notification.post;
    expect(notification.parameters.map((p) => p.name)).toEqual(
      expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature']),
    );
    expect(notification.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Event',
    });
  });
});

describe('the response check every handler and end-to-end test applies', () => {
  it('passes a response the document describes', () => {
    const ok = { status: 200, headers: json, rawBody: JSON.stringify(info) };
    expect(openApiProblems('GET', `${BASE}/subscriptions/${ID}`, ok)).toEqual([]);
    expect(openApiProblems('HEAD', `${BASE}/subscriptions/${ID}`, { ...ok, rawBody: '' })).toEqual([]);
  });

  it('fails a member the document lacks, a missing member, and a wrong type', () => {
    const extra = {
      status: 200,
      headers: json,
      rawBody: JSON.stringify({ ...info, SigningSecret: 'whsec_x' }),
    };
    expect(openApiProblems('GET', `${BASE}/subscriptions/${ID}`, extra).join()).toMatch(
      /additional properties/,
    );
    const { EndpointUri: _, ...missing } = info;
    const short = { status: 200, headers: json, rawBody: JSON.stringify([missing]) };
    expect(openApiProblems('GET', `${BASE}/subscriptions`, short).join()).toMatch(/EndpointUri/);
    const badProblem = {
      status: 404,
      headers: { 'content-type': 'application/problem+json' },
      rawBody: '{"title":1}',
    };
    expect(openApiProblems('GET', `${BASE}/subscriptions/${ID}`, badProblem)).not.toEqual([]);
  });

  it('fails a status, a method or a path the document lacks', () => {
    const teapot = { status: 418, headers: json, rawBody: '{}' };
    expect(openApiProblems('GET', `${BASE}/subscriptions/${ID}`, teapot).join()).toMatch(
      /418 is not documented/,
    );
    const put = { status: 200, headers: json, rawBody: '{}' };
    expect(openApiProblems('PUT', `${BASE}/subscriptions`, put).join()).toMatch(
      /not in the OpenAPI document/,
    );
    expect(openApiProblems('GET', '/elsewhere', put).join()).toMatch(/not in the OpenAPI document/);
  });

  it('fails a missing required header, a 204 with a Content-Type, and a problem of the wrong media type', () => {
    const created = { ...info, SigningSecret: `whsec_${Buffer.alloc(32).toString('base64')}` };
    const noLocation = { status: 201, headers: json, rawBody: JSON.stringify(created) };
    expect(openApiProblems('POST', `${BASE}/subscriptions`, noLocation).join()).toMatch(
      /Location is missing/,
    );
    const typed204 = { status: 204, headers: json, rawBody: '' };
    expect(openApiProblems('DELETE', `${BASE}/subscriptions`, typed204).join()).toMatch(/Content-Type/);
    const asJson = { status: 404, headers: json, rawBody: problem(404) };
    expect(openApiProblems('GET', `${BASE}/subscriptions/${ID}`, asJson).join()).toMatch(/Content-Type/);
    const noAllow = {
      status: 405,
      headers: { 'content-type': 'application/problem+json' },
      rawBody: problem(405),
    };
    expect(openApiProblems('PUT', `${BASE}/subscriptions`, noAllow).join()).toMatch(/Allow is missing/);
  });
});

describe('the served event in the document: the form sdk-go reads', () => {
  const ADDRESS = '/east-edge-10/site-3/node-7/sync/ptp-status/lock-state';
  const served = (value: unknown, value_type = 'decimal64.3', time = '2026-11-22T20:59:00.5Z') => ({
    status: 200,
    headers: json,
    rawBody: JSON.stringify({
      id: 'e-1',
      specversion: '1.0',
      source: '/sync/ptp-status/lock-state',
      type: 'event.sync.ptp-status.ptp-state-change',
      time,
      data: {
        version: '1.0',
        values: [{ ResourceAddress: `${ADDRESS}/ens5fx/master`, data_type: 'metric', value_type, value }],
      },
    }),
  });
  const problems = (response: ReturnType<typeof served>) =>
    openApiProblems('GET', `${BASE}${ADDRESS}/CurrentState`, response).join();

  it('passes decimal64.3 and enumeration values as strings, and other value types as written', () => {
    expect(problems(served('-3'))).toBe('');
    expect(problems(served('LOCKED', 'enumeration'))).toBe('');
    expect(problems(served(7, 'x-vendor'))).toBe('');
  });

  it('fails a number for decimal64.3 or enumeration, the value type metric, and a time Go cannot parse', () => {
    expect(problems(served(-3))).toMatch(/must be string/);
    expect(problems(served(1, 'enumeration'))).toMatch(/must be string/);
    expect(problems(served('248', 'metric'))).toMatch(/value_type/);
    expect(problems(served('-3', 'decimal64.3', '2026-11-22t20:59:00z'))).toMatch(/time/);
    expect(problems(served('-3', 'decimal64.3', '2016-12-31T23:59:60Z'))).toMatch(/time/);
  });
});
