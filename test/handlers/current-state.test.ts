import { describe, expect, it } from 'vitest';
import { lockStateEvent, uniqueCluster } from '../support/fixtures';
import {
  api,
  eventFor,
  expectJson,
  expectProblem,
  freshNode,
  LOCK_STATE,
  lockStatePublisher,
  type NotificationEvent,
  publishAccepted,
  registerPublisher,
} from './api';

describe('GET /{ResourceAddress}/CurrentState — 200', () => {
  it('answers the latest event with exactly the member names of the OpenAPI Event schema', async () => {
    const { address, event } = await lockStatePublisher();

    const response = await api.currentState(address);

    const body = expectJson<NotificationEvent>(response, 200);
    expect(body).toEqual(event);
    expect(Object.keys(body).sort()).toEqual(['data', 'id', 'source', 'specversion', 'time', 'type']);
    expect(Object.keys(body.data).sort()).toEqual(['values', 'version']);
    expect(Object.keys(body.data.values[0] ?? {}).sort()).toEqual([
      'ResourceAddress',
      'data_type',
      'value',
      'value_type',
    ]);
  });

  it('follows the newest accepted event', async () => {
    const { node, address, publisherId } = await lockStatePublisher({ time: '2024-01-01T00:00:00Z' });
    const newer = lockStateEvent({ node, time: '2024-01-01T00:00:01Z', value: 'LOCKED' });
    await publishAccepted(publisherId, newer);

    expect(expectJson(await api.currentState(address), 200)).toEqual(newer);
  });

  it('keeps time and values exactly as the producer wrote them', async () => {
    const node = freshNode();
    const publisherId = await registerPublisher(`${node}${LOCK_STATE}`);
    const event = lockStateEvent({ node, time: '2021-03-05T20:59:00.999999999Z', value: 'FREERUN' });
    const withOffset = {
      ...event,
      data: {
        version: '1.0',
        values: [
          ...event.data.values,
          {
            data_type: 'metric',
            ResourceAddress: `${node}${LOCK_STATE}`,
            value_type: 'decimal64.3',
            value: '-12.500',
          },
        ],
      },
    };
    await publishAccepted(publisherId, withOffset);

    const body = expectJson<typeof withOffset>(await api.currentState(`${node}${LOCK_STATE}`), 200);
    expect(body.time).toBe('2021-03-05T20:59:00.999999999Z');
    expect(body.data.values[1]?.value).toBe('-12.500');
    expect(body).toEqual(withOffset);
  });

  it('serves an address with many segments (optional hierarchy above and below the node)', async () => {
    const node = `/${uniqueCluster()}/region-a/site-3/rack-12/shelf-2/node-7`;
    const source = '/sync/ptp-status/ports/ens1f0/lock-state';
    const publisherId = await registerPublisher(`${node}${source}`);
    const event = eventFor({
      node,
      source,
      type: 'event.sync.ptp-status.port-state-change',
      value: 'LOCKED',
    });
    await publishAccepted(publisherId, event);

    const response = await api.getPath(`${node}${source}/CurrentState`);

    expect(expectJson(response, 200)).toEqual(event);
  });

  it('decodes percent-encoded segments', async () => {
    const cluster = uniqueCluster();
    const node = `/${cluster}/site-1/node:1~a`;
    const { address, event } = await lockStatePublisher({ node });
    expect(address).toContain(':1~a');

    const encoded = `/${cluster}/site-1/node%3A1%7Ea/sync/ptp-status/lock-state`;
    expect(expectJson(await api.getPath(`${encoded}/CurrentState`), 200)).toEqual(event);
    const lettersEncoded = `/${cluster}/%73ite-1/node:1~a/sync/ptp-status/lock-state`;
    expect(expectJson(await api.getPath(`${lettersEncoded}/CurrentState`), 200)).toEqual(event);
  });

  it('reads the address with its slashes percent-encoded, as generated clients write it, and as API Gateway delivers that', async () => {
    const { address, event } = await lockStatePublisher();
    for (const path of [
      `/${encodeURIComponent(address)}`, // openapi-fetch's {ResourceAddress} with the leading slash
      `/${encodeURIComponent(address.slice(1))}`, // and without it
      `/${address}`, // API Gateway's HTTP API decodes the first: a doubled slash after the base path
      address.replace('/sync/', '/sync%2F'),
    ]) {
      expect(expectJson(await api.getPath(`${path}/CurrentState`), 200), path).toEqual(event);
    }
  });

  it('ignores a query string', async () => {
    const { address, event } = await lockStatePublisher();
    expect(expectJson(await api.getPath(`${address}/CurrentState?format=json`), 200)).toEqual(event);
  });
});

describe('GET /{ResourceAddress}/CurrentState — 404', () => {
  it('no publisher at the address', async () => {
    const address = `${freshNode()}${LOCK_STATE}`;
    expectProblem(await api.currentState(address), 404, address);
  });

  it('a publisher that has published nothing yet', async () => {
    const { address } = await lockStatePublisher({ withState: false });
    expectProblem(await api.currentState(address), 404, address);
  });

  it('an address above a publisher (CurrentState is for exactly one publisher address)', async () => {
    const { node } = await lockStatePublisher();
    expectProblem(await api.currentState(`${node}/sync`), 404, `${node}/sync`);
    expectProblem(await api.currentState(node), 404);
  });

  it('an address below a publisher', async () => {
    const { address } = await lockStatePublisher();
    expectProblem(await api.currentState(`${address}/extra`), 404);
  });

  it('a deleted publisher', async () => {
    const { address, publisherId } = await lockStatePublisher();
    expect((await api.deletePublisher(publisherId)).status).toBe(204);
    expectProblem(await api.currentState(address), 404, address);
  });

  it.each([
    { label: 'the address alone', path: (a: string) => a },
    { label: 'a lower-case currentstate', path: (a: string) => `${a}/currentstate` },
    { label: 'something after CurrentState', path: (a: string) => `${a}/CurrentState/more` },
    { label: 'CurrentState with a trailing slash', path: (a: string) => `${a}/CurrentState/` },
    { label: 'a suffix that only ends in CurrentState', path: (a: string) => `${a}/NotCurrentState` },
    { label: 'an unknown route', path: () => '/metrics' },
    { label: 'a route without CurrentState', path: () => '/subscriptions/x/y' },
  ])('a path not ending in /CurrentState ($label)', async ({ path }) => {
    const { address } = await lockStatePublisher();
    expectProblem(await api.getPath(path(address)), 404);
  });
});

describe('GET /{ResourceAddress}/CurrentState — 400', () => {
  it.each([
    { label: 'a ".." segment', path: (node: string) => `${node}/sync/../sync/ptp-status/lock-state` },
    { label: 'a "." segment', path: (node: string) => `${node}/./sync/ptp-status/lock-state` },
    {
      label: 'a percent-encoded ".." segment',
      path: (node: string) => `${node}/%2E%2E/sync/ptp-status/lock-state`,
    },
    { label: 'a wildcard', path: (node: string) => `${node}/sync/*` },
    { label: 'a percent-encoded wildcard', path: (node: string) => `${node}/sync/%2A` },
    { label: 'a percent-encoded bracket', path: (node: string) => `${node}/sync/%5Bptp%5D` },
    { label: 'an empty segment', path: (node: string) => `${node}//sync/ptp-status/lock-state` },
    {
      label: 'a percent-encoded empty segment',
      path: (node: string) => `${node}/sync%2F%2Fptp-status/lock-state`,
    },
    { label: 'a percent-encoded space', path: (node: string) => `${node}/sync/ptp%20status/lock-state` },
    { label: 'broken percent-encoding', path: (node: string) => `${node}/sync/%ZZ/lock-state` },
    { label: 'an address over 512 characters', path: (node: string) => `${node}/${'a'.repeat(512)}` },
  ])('a malformed address ($label)', async ({ path }) => {
    const { node } = await lockStatePublisher();
    expectProblem(await api.getPath(`${path(node)}/CurrentState`), 400);
  });
});
