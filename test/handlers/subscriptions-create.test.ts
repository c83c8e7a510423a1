import dns from 'node:dns';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Reply, trackConsumers } from '../support/consumer';
import { lockStateEvent } from '../support/fixtures';
import { waitForQueueIdle } from '../support/queue-idle';
import { SINK, SINK_PORT } from '../support/sink';
import {
  type ApiResponse,
  api,
  bodyOfBytes,
  CLOCK_CLASS,
  closedPortUrl,
  eventFor,
  expectJson,
  expectProblem,
  expectSubscribed,
  expectSubscriptionInfo,
  freshNode,
  LOCK_STATE,
  lockStatePublisher,
  MAX_BODY_BYTES,
  publishAccepted,
  registerPublisher,
  type SubscriptionInfo,
  SYNC_STATE,
} from './api';

const startConsumer = trackConsumers();

async function listAll(): Promise<SubscriptionInfo[]> {
  return expectJson<SubscriptionInfo[]>(await api.listSubscriptions(), 200);
}

async function listAt(address: string): Promise<SubscriptionInfo[]> {
  return expectJson<SubscriptionInfo[]>(
    await api.listSubscriptions(`?ResourceAddress=${encodeURIComponent(address)}`),
    200,
  );
}

describe('POST /subscriptions — 201 Created', () => {
  it('answers 201 with exactly the SubscriptionInfo members and Location equal to UriLocation', async () => {
    const { address } = await lockStatePublisher({ withState: false });
    const consumer = await startConsumer();

    const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url });

    const info = expectSubscribed(response);
    expectSubscriptionInfo(info, {
      collection: 'subscriptions',
      ResourceAddress: address,
      EndpointUri: consumer.url,
    });
    expect(response.headers.location).toBe(info.UriLocation);
    expect(expectJson(await api.getSubscription(info.SubscriptionId), 200)).toEqual(info);
  });

  it('builds the absolute UriLocation from the host and x-forwarded-proto headers', async () => {
    const { address } = await lockStatePublisher({ withState: false });
    const consumer = await startConsumer();

    const response = await api.createSubscription(
      { ResourceAddress: address, EndpointUri: consumer.url },
      { headers: { host: 'events.other.example:8443', 'x-forwarded-proto': 'http' } },
    );

    const info = expectSubscribed(response);
    expect(info.UriLocation).toBe(
      `http://events.other.example:8443/api/ocloudNotifications/v2/subscriptions/${info.SubscriptionId}`,
    );
    expect(response.headers.location).toBe(info.UriLocation);
  });

  it('ignores SubscriptionId and UriLocation in the request, and unknown members', async () => {
    const { address } = await lockStatePublisher({ withState: false });
    const consumer = await startConsumer();
    const forcedId = '11111111-2222-4333-8444-555555555555';

    const response = await api.createSubscription({
      SubscriptionId: forcedId,
      UriLocation: `https://attacker.example/api/ocloudNotifications/v2/subscriptions/${forcedId}`,
      ResourceAddress: address,
      EndpointUri: consumer.url,
      Extra: { nested: true },
      priority: 7,
    });

    const info = expectSubscribed(response);
    expect(info.SubscriptionId).not.toBe(forcedId);
    expectSubscriptionInfo(info, { collection: 'subscriptions' });
    expectProblem(await api.getSubscription(forcedId), 404);
  });

  it('removes a single trailing slash from ResourceAddress in what it returns and stores', async () => {
    const { node } = await lockStatePublisher({ withState: false });
    const consumer = await startConsumer();

    const response = await api.createSubscription({
      ResourceAddress: `${node}/sync/`,
      EndpointUri: consumer.url,
    });

    const info = expectSubscribed(response);
    expect(info.ResourceAddress).toBe(`${node}/sync`);
    const stored = expectJson<SubscriptionInfo>(await api.getSubscription(info.SubscriptionId), 200);
    expect(stored.ResourceAddress).toBe(`${node}/sync`);
    expect(await listAt(`${node}/sync`)).toEqual([info]);
  });

  it('accepts an inclusive address: /<cluster>/site-1/node-1/sync covers a publisher at .../sync/ptp-status/lock-state', async () => {
    const { node, event } = await lockStatePublisher();
    const consumer = await startConsumer();

    const response = await api.createSubscription({
      ResourceAddress: `${node}/sync`,
      EndpointUri: consumer.url,
    });

    expect(expectSubscribed(response).ResourceAddress).toBe(`${node}/sync`);
    const [initial] = await consumer.waitFor(1);
    expect(initial?.body).toEqual(event);
  });

  it('accepts an EndpointUri of exactly 2048 characters', async () => {
    const { address } = await lockStatePublisher({ withState: false });
    const prefix = `${SINK}/`;
    const endpoint = `${prefix}${'a'.repeat(2048 - prefix.length)}`;
    expect(endpoint).toHaveLength(2048);

    const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: endpoint });

    expect(expectSubscribed(response).EndpointUri).toBe(endpoint);
  });

  it.each([
    { label: 'an upper-case scheme', uri: `HTTP://127.0.0.1:${SINK_PORT}/events` },
    { label: 'an IPv6 loopback literal', uri: `http://[::1]:${SINK_PORT}/events` },
    { label: 'the name localhost', uri: `http://localhost:${SINK_PORT}/events` },
    { label: 'a query string', uri: `${SINK}/events?token=abc&x=1` },
    { label: 'no path', uri: SINK },
  ])('accepts an EndpointUri with $label, returned exactly as given', async ({ uri }) => {
    const { address } = await lockStatePublisher({ withState: false });

    const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: uri });

    expect(expectSubscribed(response).EndpointUri).toBe(uri);
  });

  it("lets a private (RFC 1918) address through the local stage's network policy", async () => {
    const { address } = await lockStatePublisher({ withState: false });
    const uri = 'http://10.1.2.3:9/events';

    const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: uri });

    // Whether anything answers there depends on the machine's network: the policy must not refuse it.
    if (response.status === 201) expect(expectSubscribed(response).EndpointUri).toBe(uri);
    else expectProblem(response, 400, /cannot be reached/);
  });

  it('accepts the same address with a different EndpointUri as a second subscription', async () => {
    const { address } = await lockStatePublisher({ withState: false });
    const first = await startConsumer();
    const second = await startConsumer();

    const a = expectSubscribed(
      await api.createSubscription({ ResourceAddress: address, EndpointUri: first.url }),
    );
    const b = expectSubscribed(
      await api.createSubscription({ ResourceAddress: address, EndpointUri: second.url }),
    );

    expect(a.SubscriptionId).not.toBe(b.SubscriptionId);
    expect((await listAt(address)).map((s) => s.SubscriptionId).sort()).toEqual(
      [a.SubscriptionId, b.SubscriptionId].sort(),
    );
  });
});

describe('POST /subscriptions — sanity check (initial notification)', () => {
  it.each([
    { reply: { status: 204 }, label: '204' },
    { reply: { status: 200 }, label: '200' },
    { reply: { status: 202 }, label: '202' },
    { reply: { status: 204, delayMs: 700 }, label: '204 after 0.7 s (within the 1 s time-out)' },
  ] satisfies { reply: Reply; label: string }[])(
    'a consumer answering $label is accepted and receives the current state with the webhook headers',
    async ({ reply }) => {
      const { address, event } = await lockStatePublisher();
      const consumer = await startConsumer([reply]);
      const before = Math.floor(Date.now() / 1000);

      const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url });

      expectSubscribed(response);
      const [initial] = await consumer.waitFor(1);
      expect(initial?.method).toBe('POST');
      expect(initial?.path).toBe('/events');
      expect(initial?.body).toEqual(event);
      expect(initial?.headers['content-type']).toMatch(/^application\/json(;|$)/);
      expect(initial?.headers['webhook-id']).toEqual(expect.stringMatching(/\S/));
      const timestamp = Number(initial?.headers['webhook-timestamp']);
      expect(initial?.headers['webhook-timestamp']).toMatch(/^\d+$/);
      expect(timestamp).toBeGreaterThanOrEqual(before - 1);
      expect(timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 1);
      expect(initial?.headers['user-agent']).toMatch(/\S+\/\d+\.\d+/);
      await waitForQueueIdle({ concerning: address });
      expect(consumer.received).toHaveLength(1);
    },
  );

  it.each([
    { label: 'a consumer answering 500', replies: [{ status: 500 }] as Reply[] },
    { label: 'a consumer answering 404', replies: [{ status: 404 }] as Reply[] },
    {
      label: 'a 302 redirect (redirects are not followed)',
      replies: [{ status: 302, headers: { location: 'http://127.0.0.1:9/elsewhere' } }] as Reply[],
    },
    { label: 'a consumer that never answers', replies: ['hang'] as Reply[] },
    { label: 'a consumer answering only after 1.5 s', replies: [{ status: 204, delayMs: 1500 }] as Reply[] },
  ])('$label → 400 and nothing is stored', async ({ replies }) => {
    const { address } = await lockStatePublisher();
    const consumer = await startConsumer(replies);
    const before = await listAll();

    const started = Date.now();
    const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url });

    expectProblem(response, 400, 'EndpointUri');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(consumer.received).toHaveLength(1);
    expect(await listAll()).toEqual(before);
    expect(await listAt(address)).toEqual([]);
  });

  describe('the endpoint checks share one time-out (SANITY_CHECK_TIMEOUT_MS, 1 s)', () => {
    // DNS answers cannot be slowed otherwise: a name of the test's own resolves after `delayMs`
    // for the policy check and at once for the connection.
    const SLOW_NAME = 'slow-name.test';
    const slowName = (delayMs: number) => {
      const lookup = dns.promises.lookup;
      vi.spyOn(dns.promises, 'lookup').mockImplementation(((host: string, options: dns.LookupAllOptions) =>
        host === SLOW_NAME
          ? new Promise((resolve) =>
              setTimeout(() => resolve([{ address: '127.0.0.1', family: 4 }]), delayMs).unref(),
            )
          : lookup(host, options)) as typeof dns.promises.lookup);
      const connectLookup = dns.lookup;
      vi.spyOn(dns, 'lookup').mockImplementation(((
        host: string,
        options: dns.LookupAllOptions,
        callback: never,
      ) =>
        host === SLOW_NAME
          ? (callback as (e: null, a: dns.LookupAddress[]) => void)(null, [
              { address: '127.0.0.1', family: 4 },
            ])
          : connectLookup(host, options, callback)) as unknown as typeof dns.lookup);
    };
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it('a name not resolved within it → 400 naming the lookup, nothing stored', async () => {
      const { address } = await lockStatePublisher();
      slowName(60_000);
      const consumer = await startConsumer();
      const endpoint = consumer.url.replace('127.0.0.1', SLOW_NAME);

      const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: endpoint });

      expectProblem(response, 400, `EndpointUri host ${SLOW_NAME} could not be resolved within 1000 ms`);
      expect(consumer.received).toEqual([]);
      expect(await listAt(address)).toEqual([]);
    });

    it('a lookup of 0.6 s and an answer after 0.6 s → 400 (each alone is within it), nothing stored', async () => {
      const { address } = await lockStatePublisher();
      slowName(600);
      const consumer = await startConsumer([{ status: 204, delayMs: 600 }]);
      const endpoint = consumer.url.replace('127.0.0.1', SLOW_NAME);

      const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: endpoint });

      expectProblem(response, 400, 'did not accept the initial notification');
      expect(await listAt(address)).toEqual([]);
    });

    it('a lookup of 0.2 s and an answer after 0.2 s → 201', async () => {
      const { address } = await lockStatePublisher();
      slowName(200);
      const consumer = await startConsumer([{ status: 204, delayMs: 200 }]);
      const endpoint = consumer.url.replace('127.0.0.1', SLOW_NAME);

      expectSubscribed(await api.createSubscription({ ResourceAddress: address, EndpointUri: endpoint }));
      expect(consumer.received).toHaveLength(1);
    });
  });

  it('a closed port → 400 and nothing is stored', async () => {
    const { address } = await lockStatePublisher();
    const endpoint = await closedPortUrl();
    const before = await listAll();

    const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: endpoint });

    expectProblem(response, 400, 'EndpointUri');
    expect(await listAll()).toEqual(before);
    expect(await listAt(address)).toEqual([]);
  });

  it('after a failed check nothing blocks a later attempt: the same request then succeeds with 201', async () => {
    const { address } = await lockStatePublisher();
    const consumer = await startConsumer([{ status: 500 }, { status: 204 }]);

    expectProblem(await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url }), 400);
    const retry = await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url });

    expectSubscribed(retry);
    expect(await listAt(address)).toHaveLength(1);
  });

  it('sends nothing when no covered publisher has a state yet: 201 once the endpoint accepts a connection', async () => {
    const { address } = await lockStatePublisher({ withState: false });
    // It would fail the check if it were sent a request.
    const consumer = await startConsumer([{ status: 500 }]);

    const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url });

    expectSubscribed(response);
    await waitForQueueIdle({ concerning: address });
    expect(consumer.received).toEqual([]);
  });

  it('with no state yet, an endpoint that accepts no connection → 400 saying so, and nothing is stored', async () => {
    const { address } = await lockStatePublisher({ withState: false });
    const endpoint = await closedPortUrl();

    const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: endpoint });

    expectProblem(
      response,
      400,
      /cannot be reached \(connection failed: ECONNREFUSED.*nothing has been published/,
    );
    expect(await listAt(address)).toEqual([]);
  });

  it('with no state yet, an https endpoint must complete a TLS handshake: a plain HTTP listener → 400', async () => {
    const { address } = await lockStatePublisher({ withState: false });

    const response = await api.createSubscription({
      ResourceAddress: address,
      EndpointUri: `https://127.0.0.1:${SINK_PORT}/events`,
    });

    expectProblem(response, 400, /cannot be reached \(connection failed: /);
    expect(await listAt(address)).toEqual([]);
  });

  it('an event published while the consumer answers the initial notification is delivered once the subscription exists', async () => {
    // Its fan-out reads the subscriptions before this one is written, so only the subscribe itself
    // can deliver it: a vDU would otherwise keep the older state until the next change.
    const { node, address, publisherId } = await lockStatePublisher();
    const consumer = await startConsumer([{ status: 204, delayMs: 900 }, { status: 204 }]);
    let answered = false;
    const subscribing = api
      .createSubscription({ ResourceAddress: address, EndpointUri: consumer.url })
      .finally(() => {
        answered = true;
      });
    await consumer.waitFor(1);
    const during = lockStateEvent({ node, value: 'FREERUN' });
    await publishAccepted(publisherId, during);
    await waitForQueueIdle({ concerning: address });
    expect(answered, 'the event was fanned out while the subscribe was still under way').toBe(false);

    expectSubscribed(await subscribing);
    const received = await consumer.waitFor(2);
    expect(received[1]?.body).toEqual(during);
    await waitForQueueIdle({ concerning: address });
    expect(consumer.received).toHaveLength(2);
  });

  it('for an inclusive address posts the newest covered state first; the other states follow', async () => {
    const node = freshNode();
    const lockId = await registerPublisher(`${node}${LOCK_STATE}`);
    const syncId = await registerPublisher(`${node}${SYNC_STATE}`);
    const classId = await registerPublisher(`${node}${CLOCK_CLASS}`);
    const older = lockStateEvent({ node, time: '2024-05-01T10:00:00Z' });
    const newest = eventFor({
      node,
      source: SYNC_STATE,
      type: 'event.sync.sync-status.synchronization-state-change',
      value: 'LOCKED',
      time: '2024-05-01T10:00:02.5Z',
    });
    const middle = eventFor({
      node,
      source: CLOCK_CLASS,
      type: 'event.sync.ptp-status.ptp-clock-class-change',
      value: 6,
      valueType: 'metric',
      dataType: 'metric',
      time: '2024-05-01T10:00:01Z',
    });
    await publishAccepted(lockId, older);
    await publishAccepted(syncId, newest);
    await publishAccepted(classId, middle);
    const consumer = await startConsumer();

    const response = await api.createSubscription({
      ResourceAddress: `${node}/sync`,
      EndpointUri: consumer.url,
    });

    expectSubscribed(response);
    const received = await consumer.waitFor(3);
    expect(received[0]?.body).toEqual(newest);
    // The clock class goes out in the wire form: a decimal64.3 string.
    const middleOnTheWire = {
      ...middle,
      data: { ...middle.data, values: [{ ...middle.data.values[0], value_type: 'decimal64.3', value: '6' }] },
    };
    expect(received.map((r) => r.body)).toEqual(expect.arrayContaining([older, middleOnTheWire, newest]));
  });
});

describe('POST /subscriptions — 409 Conflict', () => {
  it('names the existing subscription in Location and in the detail, and sends no second initial notification', async () => {
    const { address } = await lockStatePublisher();
    const consumer = await startConsumer();
    const first = expectSubscribed(
      await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url }),
    );
    await consumer.waitFor(1);

    const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url });

    expectProblem(response, 409, first.UriLocation);
    expect(response.headers.location).toBe(first.UriLocation);
    await waitForQueueIdle({ concerning: address });
    expect(consumer.received).toHaveLength(1);
    expect(await listAt(address)).toHaveLength(1);
  });

  it('compares the normalised address: a trailing slash is the same subscription', async () => {
    const { address } = await lockStatePublisher({ withState: false });
    const consumer = await startConsumer();
    const first = expectSubscribed(
      await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url }),
    );

    const response = await api.createSubscription({
      ResourceAddress: `${address}/`,
      EndpointUri: consumer.url,
    });

    expectProblem(response, 409, first.UriLocation);
    expect(response.headers.location).toBe(first.UriLocation);
  });

  it('wins over the 404 even after the publisher is deleted', async () => {
    const { address, publisherId } = await lockStatePublisher({ withState: false });
    const consumer = await startConsumer();
    const first = expectSubscribed(
      await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url }),
    );
    expect((await api.deletePublisher(publisherId)).status).toBe(204);

    const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url });

    expectProblem(response, 409, first.UriLocation);
    expect(response.headers.location).toBe(first.UriLocation);
  });

  it('wins over the sanity check: a consumer that now fails still gets 409, not 400', async () => {
    const { address } = await lockStatePublisher();
    const consumer = await startConsumer([{ status: 204 }, { status: 500 }]);
    const first = expectSubscribed(
      await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url }),
    );

    const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url });

    expectProblem(response, 409);
    expect(response.headers.location).toBe(first.UriLocation);
  });

  it('concurrent identical requests create exactly one subscription: one 201, the rest 409', async () => {
    const { address } = await lockStatePublisher();
    const consumer = await startConsumer();
    const body = { ResourceAddress: address, EndpointUri: consumer.url };

    const responses = await Promise.all(Array.from({ length: 5 }, () => api.createSubscription(body)));

    const created = responses.filter((r) => r.status === 201);
    const conflicts = responses.filter((r) => r.status === 409);
    expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const info = expectSubscribed(created[0] as ApiResponse);
    for (const conflict of conflicts) {
      expectProblem(conflict, 409, info.UriLocation);
      expect(conflict.headers.location).toBe(info.UriLocation);
      expect(conflict.rawBody).not.toContain('whsec_');
    }
    expect(await listAt(address)).toEqual([info]);
  });
});

describe('POST /subscriptions — 404 Not Found', () => {
  const otherNode = (node: string) => node.replace(/node-1$/, 'node-2');
  it.each([
    { label: 'no publisher in the cluster at all', publisherAt: () => undefined, subscribeTo: '/sync' },
    {
      label: 'a publisher only on another node',
      publisherAt: (node: string) => `${otherNode(node)}${LOCK_STATE}`,
      subscribeTo: '/sync',
    },
    {
      label: 'a publisher above the address only',
      publisherAt: (node: string) => `${node}/sync`,
      subscribeTo: LOCK_STATE,
    },
    {
      label: 'a publisher whose address merely starts with the same characters',
      publisherAt: (node: string) => `${node}${LOCK_STATE}`,
      subscribeTo: '/sync/ptp',
    },
    {
      label: 'a sibling publisher only',
      publisherAt: (node: string) => `${node}${CLOCK_CLASS}`,
      subscribeTo: LOCK_STATE,
    },
  ])('$label → 404 naming the address', async ({ publisherAt, subscribeTo }) => {
    const node = freshNode();
    const publisherAddress = publisherAt(node);
    if (publisherAddress) await registerPublisher(publisherAddress);
    const consumer = await startConsumer();
    const address = `${node}${subscribeTo}`;

    const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url });

    expectProblem(response, 404, address);
    await waitForQueueIdle({ concerning: address });
    expect(consumer.received).toEqual([]);
    expect(await listAt(address)).toEqual([]);
  });
});

describe('POST /subscriptions — 400 Bad Request', () => {
  it.each([
    { label: 'a malformed JSON string', body: '{"ResourceAddress": "/a", ' },
    { label: 'plain text', body: 'ResourceAddress=/a&EndpointUri=http://x' },
    { label: 'an empty body', body: '' },
    { label: 'a JSON array', body: '[{"ResourceAddress": "/a", "EndpointUri": "http://127.0.0.1:9/"}]' },
    { label: 'JSON null', body: 'null' },
    { label: 'a JSON number', body: '42' },
    { label: 'a JSON string', body: '"/a"' },
  ])('body that is not a JSON object: $label → 400', async ({ body }) => {
    expectProblem(await api.createSubscription(body), 400, /JSON/);
  });

  it.each([
    { wrong: 'endpointUri', right: 'EndpointUri' },
    { wrong: 'resourceAddress', right: 'ResourceAddress' },
    { wrong: 'signingsecret', right: 'SigningSecret' },
  ])(
    'a member in the wrong case ($wrong) → 400 saying names are case-sensitive',
    async ({ wrong, right }) => {
      const body = { ResourceAddress: '/c/s/n', EndpointUri: 'http://127.0.0.1:9/', [wrong]: 'x' };
      const problem = expectProblem(await api.createSubscription(body), 400, 'case-sensitive');
      expect(problem.detail).toBe(`member names are case-sensitive: "${wrong}" must be written ${right}`);
    },
  );

  it('no body at all → 400', async () => {
    expectProblem(await api.createSubscription(undefined), 400);
  });

  describe('members missing, empty or not a string', () => {
    const cases = [
      { label: 'missing', value: undefined },
      { label: 'empty', value: '' },
      { label: 'a number', value: 42 },
      { label: 'null', value: null },
      { label: 'an array', value: ['/a'] },
      { label: 'an object', value: { path: '/a' } },
      { label: 'a boolean', value: true },
    ];

    it.each(cases)('ResourceAddress $label → 400 naming ResourceAddress', async ({ value }) => {
      const consumer = await startConsumer();
      const body: Record<string, unknown> = { EndpointUri: consumer.url };
      if (value !== undefined) body.ResourceAddress = value;

      expectProblem(await api.createSubscription(body), 400, 'ResourceAddress');
    });

    it.each(cases)('EndpointUri $label → 400 naming EndpointUri', async ({ value }) => {
      const { address } = await lockStatePublisher({ withState: false });
      const body: Record<string, unknown> = { ResourceAddress: address };
      if (value !== undefined) body.EndpointUri = value;

      expectProblem(await api.createSubscription(body), 400, 'EndpointUri');
    });
  });

  it.each([
    { label: 'no leading slash', suffix: null, address: 'cluster-x/site-1/node-1/sync' },
    { label: 'an empty segment', suffix: '//sync' },
    { label: 'a "." segment', suffix: '/./sync' },
    { label: 'a ".." segment', suffix: '/../sync' },
    { label: 'a space', suffix: '/sync status' },
    { label: 'a percent sign', suffix: '/sync%2Fstatus' },
    { label: 'a non-ASCII letter', suffix: '/synç' },
    { label: 'two trailing slashes', suffix: '/sync//' },
    { label: 'a backslash', suffix: '\\sync' },
    { label: 'only a slash', suffix: null, address: '/' },
    { label: 'a query string', suffix: '/sync?x=1' },
    { label: 'more than 512 characters', suffix: null, address: `/${'a'.repeat(512)}` },
  ])('a malformed ResourceAddress ($label) → 400 naming ResourceAddress', async ({ suffix, address }) => {
    const { node } = await lockStatePublisher({ withState: false });
    const consumer = await startConsumer();
    const resourceAddress = suffix === null ? address : `${node}${suffix}`;

    const response = await api.createSubscription({
      ResourceAddress: resourceAddress,
      EndpointUri: consumer.url,
    });

    expectProblem(response, 400, 'ResourceAddress');
    expect(consumer.received).toEqual([]);
  });

  it.each([
    '/sync/*',
    '/*/ptp-status/lock-state',
    '/sync/ptp-status/lock-stat?',
    '/sync/[ps]tp-status',
    '/sync/.*',
    '/sync/ptp-status/lock-state*',
  ])('a wildcard (%s under the node) → 400 saying wildcards are not supported', async (suffix) => {
    const { node } = await lockStatePublisher();
    const consumer = await startConsumer();

    const response = await api.createSubscription({
      ResourceAddress: `${node}${suffix}`,
      EndpointUri: consumer.url,
    });

    expectProblem(response, 400, /wildcard/i);
    expect(consumer.received).toEqual([]);
  });

  it.each([
    { label: 'not a URI', uri: 'not a uri' },
    { label: 'a relative reference', uri: '/events' },
    { label: 'no scheme', uri: '127.0.0.1:9/events' },
    { label: 'an ftp URI', uri: 'ftp://127.0.0.1/events' },
    { label: 'a mailto URI', uri: 'mailto:ops@example.com' },
    { label: 'a file URI', uri: 'file:///etc/passwd' },
    { label: 'no host', uri: 'http:///events' },
    { label: 'only a scheme', uri: 'https://' },
    { label: 'no "//"', uri: 'http:127.0.0.1/events' },
    { label: 'user info', uri: 'http://user:secret@127.0.0.1:9/events' },
    { label: 'a user name only', uri: 'http://user@127.0.0.1:9/events' },
    { label: 'a fragment', uri: 'http://127.0.0.1:9/events#part' },
    { label: 'an empty fragment', uri: 'http://127.0.0.1:9/events#' },
    { label: 'a leading space', uri: ' http://127.0.0.1:9/events' },
    { label: 'a space inside', uri: 'http://127.0.0.1:9/my events' },
    { label: '2049 characters', uri: `http://127.0.0.1:9/${'a'.repeat(2049 - 19)}` },
    { label: 'a link-local (cloud metadata) address', uri: 'http://169.254.169.254/latest/meta-data' },
    { label: 'a multicast address', uri: 'http://224.0.0.1/events' },
    { label: 'the unspecified address', uri: 'http://0.0.0.0:9/events' },
  ])('a bad EndpointUri ($label) → 400 naming EndpointUri, nothing sent', async ({ uri }) => {
    const { address } = await lockStatePublisher();

    const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: uri });

    expectProblem(response, 400, 'EndpointUri');
    expect(await listAt(address)).toEqual([]);
  });

  it('checks 400 before 404: a bad EndpointUri with no publisher anywhere is 400', async () => {
    const node = freshNode();
    const response = await api.createSubscription({
      ResourceAddress: `${node}/sync`,
      EndpointUri: 'ftp://x/y',
    });
    expectProblem(response, 400, 'EndpointUri');
  });
});

describe('POST /subscriptions — body size', () => {
  it('a body of 64 KiB + 1 byte → 413', async () => {
    const { address } = await lockStatePublisher({ withState: false });
    const consumer = await startConsumer();
    const body = bodyOfBytes({ ResourceAddress: address, EndpointUri: consumer.url }, MAX_BODY_BYTES + 1);

    const response = await api.createSubscription(body);

    expectProblem(response, 413, /bytes/);
    expect(await listAt(address)).toEqual([]);
  });

  it('a body of exactly 64 KiB is not refused for its size', async () => {
    const { address } = await lockStatePublisher({ withState: false });
    const consumer = await startConsumer();
    const body = bodyOfBytes({ ResourceAddress: address, EndpointUri: consumer.url }, MAX_BODY_BYTES);

    const response = await api.createSubscription(body);

    expectSubscribed(response);
  });

  it('counts bytes, not characters: just over 64 KiB of two-byte characters → 413', async () => {
    const { address } = await lockStatePublisher({ withState: false });
    const consumer = await startConsumer();
    const base = { ResourceAddress: address, EndpointUri: consumer.url };
    const emptyBytes = Buffer.byteLength(JSON.stringify({ ...base, padding: '' }));
    const bytes = emptyBytes + 2 * Math.ceil((MAX_BODY_BYTES + 1 - emptyBytes) / 2);
    const body = bodyOfBytes(base, bytes, 'é');
    expect(body.length).toBeLessThan(MAX_BODY_BYTES);

    expectProblem(await api.createSubscription(body), 413);
  });

  it('a base64-encoded body (as API Gateway sends binary media) of 64 KiB + 1 byte → 413', async () => {
    const { address } = await lockStatePublisher({ withState: false });
    const consumer = await startConsumer();
    const body = bodyOfBytes({ ResourceAddress: address, EndpointUri: consumer.url }, MAX_BODY_BYTES + 1);

    const response = await api.createSubscription(Buffer.from(body).toString('base64'), {
      isBase64Encoded: true,
    });

    expectProblem(response, 413);
  });

  it('a base64-encoded body of exactly 64 KiB is not refused for its size', async () => {
    const { address } = await lockStatePublisher({ withState: false });
    const consumer = await startConsumer();
    const body = bodyOfBytes({ ResourceAddress: address, EndpointUri: consumer.url }, MAX_BODY_BYTES);

    const response = await api.createSubscription(Buffer.from(body).toString('base64'), {
      isBase64Encoded: true,
    });

    expectSubscribed(response);
  });
});
