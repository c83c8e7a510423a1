import { describe, expect, it } from 'vitest';
import { trackConsumers } from '../support/consumer';
import { lockStateEvent } from '../support/fixtures';
import {
  api,
  bodyOfBytes,
  expectJson,
  expectNoContent,
  expectProblem,
  expectSubscribed,
  expectSubscriptionInfo,
  freshNode,
  LOCK_STATE,
  lockStatePublisher,
  MAX_BODY_BYTES,
  PUBLIC_BASE,
  type SubscriptionInfo,
  UUID_V4,
} from './api';

const startConsumer = trackConsumers();

describe('POST /publishers', () => {
  it('answers 201 with the publisher record and Location equal to UriLocation', async () => {
    const address = `${freshNode()}${LOCK_STATE}`;

    const response = await api.createPublisher({
      ResourceAddress: address,
      EndpointUri: 'http://127.0.0.1:9/producer',
    });

    const record = expectJson<SubscriptionInfo>(response, 201);
    expectSubscriptionInfo(record, {
      collection: 'publishers',
      ResourceAddress: address,
      EndpointUri: 'http://127.0.0.1:9/producer',
    });
    expect(response.headers.location).toBe(record.UriLocation);
  });

  it('EndpointUri is optional: without one the record names where its current state is pulled', async () => {
    const address = `${freshNode()}${LOCK_STATE}`;

    const response = await api.createPublisher({ ResourceAddress: address });

    const record = expectJson<SubscriptionInfo>(response, 201);
    expect(record).toMatchObject({ ResourceAddress: address });
    expect(record.EndpointUri).toBe(`${PUBLIC_BASE}${address}/CurrentState`);
    expect(response.headers.location).toBe(record.UriLocation);
    // The same in every representation, and it is where the state really is.
    expect(expectJson(await api.getPublisher(record.SubscriptionId), 200)).toEqual(record);
    expect(expectJson<SubscriptionInfo[]>(await api.listPublishers(), 200)).toContainEqual(record);
    const path = new URL(record.EndpointUri).pathname.replace('/api/ocloudNotifications/v2', '');
    expectProblem(await api.getPath(path), 404, 'has not published any event yet');
  });

  it('builds the CurrentState EndpointUri like UriLocation, from the request host', async () => {
    const address = `${freshNode()}${LOCK_STATE}`;
    const response = await api.createPublisher(
      { ResourceAddress: address },
      { headers: { host: 'internal.example.org', 'x-forwarded-proto': 'http' } },
    );
    expect(expectJson<SubscriptionInfo>(response, 201).EndpointUri).toBe(
      `http://internal.example.org/api/ocloudNotifications/v2${address}/CurrentState`,
    );
  });

  it('removes a trailing slash, ignores unknown members and a SubscriptionId in the request', async () => {
    const address = `${freshNode()}${LOCK_STATE}`;
    const forcedId = '11111111-2222-4333-8444-555555555555';

    const response = await api.createPublisher({
      ResourceAddress: `${address}/`,
      SubscriptionId: forcedId,
      x: 1,
    });

    const record = expectJson<SubscriptionInfo>(response, 201);
    expect(record.ResourceAddress).toBe(address);
    expect(record.SubscriptionId).not.toBe(forcedId);
  });

  it('builds UriLocation from the host and x-forwarded-proto headers', async () => {
    const response = await api.createPublisher(
      { ResourceAddress: `${freshNode()}${LOCK_STATE}` },
      { headers: { host: 'internal.example.org', 'x-forwarded-proto': 'http' } },
    );

    const record = expectJson<SubscriptionInfo>(response, 201);
    expect(record.UriLocation).toBe(
      `http://internal.example.org/api/ocloudNotifications/v2/publishers/${record.SubscriptionId}`,
    );
  });

  it.each([
    { label: 'the same address', again: (a: string) => a },
    { label: 'the same address with a trailing slash', again: (a: string) => `${a}/` },
  ])('answers 409 for $label, naming the existing publisher in Location and detail', async ({ again }) => {
    const address = `${freshNode()}${LOCK_STATE}`;
    const first = expectJson<SubscriptionInfo>(await api.createPublisher({ ResourceAddress: address }), 201);

    const response = await api.createPublisher({
      ResourceAddress: again(address),
      EndpointUri: 'http://127.0.0.1:9/',
    });

    expectProblem(response, 409, first.UriLocation);
    expect(response.headers.location).toBe(first.UriLocation);
    expect(expectJson(await api.getPublisher(first.SubscriptionId), 200)).toEqual(first);
  });

  it('concurrent registrations of one address: one 201, the rest 409', async () => {
    const address = `${freshNode()}${LOCK_STATE}`;

    const responses = await Promise.all(
      Array.from({ length: 4 }, () => api.createPublisher({ ResourceAddress: address })),
    );

    expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    const created = responses.find((r) => r.status === 201)?.body as SubscriptionInfo;
    for (const conflict of responses.filter((r) => r.status === 409)) {
      expect(conflict.headers.location).toBe(created.UriLocation);
    }
  });

  it('allows publishers above and below one another (distinct addresses)', async () => {
    const node = freshNode();
    expectJson(await api.createPublisher({ ResourceAddress: `${node}/sync` }), 201);
    expectJson(await api.createPublisher({ ResourceAddress: `${node}${LOCK_STATE}` }), 201);
  });

  it('accepts every allowed segment character and addresses of exactly 512 characters', async () => {
    const node = freshNode();
    const tricky = `${node}/sync_1/ptp.status~a:b/LOCK-state`;
    expect(
      expectJson<SubscriptionInfo>(await api.createPublisher({ ResourceAddress: tricky }), 201)
        .ResourceAddress,
    ).toBe(tricky);
    const long = `${node}/${'a'.repeat(512 - node.length - 1)}`;
    expect(long).toHaveLength(512);
    expect(
      expectJson<SubscriptionInfo>(await api.createPublisher({ ResourceAddress: `${long}/` }), 201)
        .ResourceAddress,
    ).toBe(long);
    expectProblem(await api.createPublisher({ ResourceAddress: `${long}b` }), 400, 'ResourceAddress');
  });

  it.each([
    { label: 'a malformed JSON string', body: '{"ResourceAddress":' },
    { label: 'a JSON array', body: '[]' },
    { label: 'JSON null', body: 'null' },
  ])('answers 400 for a body that is not a JSON object ($label)', async ({ body }) => {
    expectProblem(await api.createPublisher(body), 400, /JSON/);
  });

  it('answers 400 saying names are case-sensitive for a member in the wrong case (endpointUri)', async () => {
    const body = { ResourceAddress: '/c/s/n', endpointUri: 'http://127.0.0.1:9/' };
    const problem = expectProblem(await api.createPublisher(body), 400, 'case-sensitive');
    expect(problem.detail).toBe('member names are case-sensitive: "endpointUri" must be written EndpointUri');
  });

  it.each([
    { label: 'ResourceAddress missing', body: {} },
    { label: 'ResourceAddress empty', body: { ResourceAddress: '' } },
    { label: 'ResourceAddress not a string', body: { ResourceAddress: 12 } },
    { label: 'ResourceAddress without a leading slash', body: { ResourceAddress: 'c/site/node' } },
    { label: 'ResourceAddress with a ".." segment', body: { ResourceAddress: '/c/../node' } },
    { label: 'ResourceAddress with an empty segment', body: { ResourceAddress: '/c//node' } },
    { label: 'ResourceAddress with a wildcard', body: { ResourceAddress: '/c/site/*' } },
    { label: 'ResourceAddress with a bad character', body: { ResourceAddress: '/c/site/node 1' } },
    { label: 'ResourceAddress over 512 characters', body: { ResourceAddress: `/${'a'.repeat(512)}` } },
  ])('answers 400 naming ResourceAddress: $label', async ({ body }) => {
    expectProblem(await api.createPublisher(body), 400, 'ResourceAddress');
  });

  it.each([
    { label: 'empty', uri: '' },
    { label: 'not a string', uri: 42 },
    { label: 'relative', uri: '/producer' },
    { label: 'not http(s)', uri: 'ftp://127.0.0.1/producer' },
    { label: 'without a host', uri: 'http:///producer' },
    { label: 'with user info', uri: 'http://u:p@127.0.0.1/producer' },
    { label: 'with a fragment', uri: 'http://127.0.0.1/producer#x' },
    { label: 'over 2048 characters', uri: `http://127.0.0.1/${'a'.repeat(2048)}` },
  ])('validates an EndpointUri when given: $label → 400 naming EndpointUri', async ({ uri }) => {
    const address = `${freshNode()}${LOCK_STATE}`;

    expectProblem(
      await api.createPublisher({ ResourceAddress: address, EndpointUri: uri }),
      400,
      'EndpointUri',
    );

    // Nothing was registered: the address is still free.
    expectJson(await api.createPublisher({ ResourceAddress: address }), 201);
  });

  it('answers 413 for a body of 64 KiB + 1 byte, and accepts exactly 64 KiB', async () => {
    const tooBig = bodyOfBytes({ ResourceAddress: `${freshNode()}${LOCK_STATE}` }, MAX_BODY_BYTES + 1);
    expectProblem(await api.createPublisher(tooBig), 413);

    const exact = bodyOfBytes({ ResourceAddress: `${freshNode()}${LOCK_STATE}` }, MAX_BODY_BYTES);
    expectJson(await api.createPublisher(exact), 201);
  });
});

describe('GET /publishers/{publisherId}', () => {
  it('answers 200 with the record as created', async () => {
    const created = expectJson<SubscriptionInfo>(
      await api.createPublisher({
        ResourceAddress: `${freshNode()}${LOCK_STATE}`,
        EndpointUri: 'https://p.example/x',
      }),
      201,
    );

    expect(expectJson(await api.getPublisher(created.SubscriptionId), 200)).toEqual(created);
  });

  it.each([
    { label: 'an unknown uuid v4', id: 'f47ac10b-58cc-4372-a567-0e02b2c3d479' },
    { label: 'a path traversal', id: '../x' },
    { label: 'a percent-encoded space', id: '%20' },
    { label: 'an empty string', id: '' },
    { label: 'an over-long string (2100 characters)', id: 'x'.repeat(2100) },
  ])('answers 404 for $label', async ({ id }) => {
    expectProblem(await api.getPublisher(id), 404);
  });
});

describe('DELETE /publishers/{publisherId}', () => {
  it('answers 204 with an empty body, then 404 for GET and for a second DELETE', async () => {
    const { publisherId } = await lockStatePublisher({ withState: false });

    expectNoContent(await api.deletePublisher(publisherId));

    expectProblem(await api.getPublisher(publisherId), 404, publisherId);
    expectProblem(await api.deletePublisher(publisherId), 404, publisherId);
  });

  it.each([
    { label: 'an unknown uuid v4', id: 'f47ac10b-58cc-4372-a567-0e02b2c3d479' },
    { label: 'a path traversal', id: '../x' },
    { label: 'an over-long string (2100 characters)', id: 'x'.repeat(2100) },
  ])('answers 404 for $label', async ({ id }) => {
    expectProblem(await api.deletePublisher(id), 404);
  });

  it('takes the current state with it but leaves the subscriptions', async () => {
    const { address, node, publisherId } = await lockStatePublisher();
    const consumer = await startConsumer();
    const exact = expectSubscribed(
      await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url }),
    );
    const inclusive = expectSubscribed(
      await api.createSubscription({ ResourceAddress: `${node}/sync`, EndpointUri: consumer.url }),
    );

    expectNoContent(await api.deletePublisher(publisherId));

    expectProblem(await api.currentState(address), 404, address);
    expect(expectJson(await api.getSubscription(exact.SubscriptionId), 200)).toEqual(exact);
    expect(expectJson(await api.getSubscription(inclusive.SubscriptionId), 200)).toEqual(inclusive);
    expectProblem(await api.publish(publisherId, lockStateEvent({ node })), 404, publisherId);
  });

  it('frees the address: it can be registered again (the same id: ids follow from addresses) and starts without a state', async () => {
    const { address, node, publisherId } = await lockStatePublisher();
    expectNoContent(await api.deletePublisher(publisherId));

    const again = expectJson<SubscriptionInfo>(await api.createPublisher({ ResourceAddress: address }), 201);

    expect(again.SubscriptionId).toBe(publisherId);
    expectProblem(await api.currentState(address), 404);
    const event = lockStateEvent({ node });
    expect((await api.publish(again.SubscriptionId, event)).status).toBe(202);
    expect(expectJson(await api.currentState(address), 200)).toEqual(event);
  });
});

describe('GET /publishers', () => {
  it('answers an array of records in the SubscriptionInfo shape with UriLocation .../publishers/{id}', async () => {
    const created = expectJson<SubscriptionInfo>(
      await api.createPublisher({
        ResourceAddress: `${freshNode()}${LOCK_STATE}`,
        EndpointUri: 'https://p.example/x',
      }),
      201,
    );

    const all = expectJson<SubscriptionInfo[]>(await api.listPublishers(), 200);

    expect(Array.isArray(all)).toBe(true);
    expect(all).toContainEqual(created);
    for (const record of all) {
      expect(record.SubscriptionId).toMatch(UUID_V4);
      expect(record.UriLocation).toBe(`${PUBLIC_BASE}/publishers/${record.SubscriptionId}`);
      expect(typeof record.ResourceAddress).toBe('string');
      expect(Object.keys(record).sort()).toEqual([
        'EndpointUri',
        'ResourceAddress',
        'SubscriptionId',
        'UriLocation',
      ]);
      expect(new URL(record.EndpointUri).protocol).toMatch(/^https?:$/);
    }
  });

  it('answers a 404 problem when no publisher is registered', async () => {
    const all = expectJson<SubscriptionInfo[]>(await api.listPublishers(), 200);
    for (const record of all) expectNoContent(await api.deletePublisher(record.SubscriptionId));

    expectProblem(await api.listPublishers(), 404);
  });
});
