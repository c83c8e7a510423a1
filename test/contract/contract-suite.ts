/**
 * The HTTP contract (docs/api.md, docs/delivery.md), one suite for every host that serves it
 * (docs/testing.md): the region as `npm start` runs it (serverless offline, DynamoDB Local, the
 * local queue; test/contract/region.e2e.test.ts) and a node's agent with `--serve`, installed from
 * its package (test/contract/node.e2e.test.ts). The same requests and the same assertions; a host
 * says only where its addresses are, how to know its delivery is idle, and how it names itself.
 *
 * Tests run in order and share the host's store; each uses its own addresses (`freshPrefix`),
 * except the store-wide checks (the empty publisher list first, delete-all last).
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import createClient, { type Client } from 'openapi-fetch';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTraceparent } from '../../lib/tracing';
import { version as packageVersion } from '../../package.json';
import { type Consumer, startConsumer } from '../support/consumer';
import { lockStateEvent } from '../support/fixtures';
import type { paths } from '../support/generated/ocloud-api';
import { assertDocumented } from '../support/openapi';
import { decodeLikeSdkGo } from '../support/sdk-go';
import { type CallOptions, callApi, expectProblem, isLambdaError, type Reply, verifiedBody } from './http';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export interface ContractHost {
  /** How the tests' names call it, e.g. "the region (npm start)". */
  readonly name: string;
  /** The API base, e.g. http://127.0.0.1:4000/api/ocloudNotifications/v2; read only once the host is up. */
  readonly url: string;
  /**
   * A prefix no other test uses, under which a test puts its addresses: a fresh cluster in the
   * region, a fresh segment under the agent's node on a node (whose API serves nothing else).
   */
  freshPrefix(): string;
  /** Resolves once nothing concerning `concerning` is pending, in flight or due for a retry. */
  waitForIdle(concerning: string): Promise<void>;
  /** The `User-Agent` product its deliveries name (the contract: the service and its version). */
  readonly serviceName: string;
  /** The node a node's host serves (docs/agent.md): it answers for no address outside it. */
  readonly nodeScope?: string;
}

/** The contract's tests against `host`, all within one describe named after it. */
export function contractSuite(host: ContractHost): void {
  describe(`the O-Cloud Notification API v2 contract on ${host.name}`, () => {
    const consumers: Consumer[] = [];

    afterAll(async () => {
      await Promise.all(consumers.splice(0).map((consumer) => consumer.close()));
    });

    const call = (method: string, path: string, options?: CallOptions) =>
      callApi(host.url, method, path, options);

    async function newConsumer(...args: Parameters<typeof startConsumer>): Promise<Consumer> {
      const consumer = await startConsumer(...args);
      consumers.push(consumer);
      return consumer;
    }

    async function registerPublisher(resourceAddress: string): Promise<{ id: string; location: string }> {
      const reply = await call('POST', '/publishers', { body: { ResourceAddress: resourceAddress } });
      expect(reply.status, reply.raw).toBe(201);
      return { id: reply.body.SubscriptionId, location: reply.body.UriLocation };
    }

    async function publish(publisherId: string, event: unknown): Promise<Reply> {
      return call('POST', `/publishers/${publisherId}/events`, { body: event });
    }

    /** `<prefix>/site-3/node-7` for a fresh prefix, and the lock-state publisher address under it. */
    function freshNode(): { node: string; address: string } {
      const node = `${host.freshPrefix()}/site-3/node-7`;
      return { node, address: `${node}/sync/ptp-status/lock-state` };
    }

    it('serves the API under the base path on 127.0.0.1', () => {
      expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/ocloudNotifications\/v2$/);
    });

    describe('routing: every route answers on its method and path', () => {
      // Runs before any publisher is registered: the host's store is new to this suite.
      it('GET /publishers is the list route (404 "no publisher"), not the CurrentState catch-all', async () => {
        const reply = await call('GET', '/publishers');
        expectProblem(reply, 404);
        expect(reply.body.detail).toMatch(/no publisher is registered/i);
        expect(reply.body.detail).not.toMatch(/CurrentState/);
      });

      it('GET /health is the health route: 200 text/plain OK, the release in X-Service-Version', async () => {
        const reply = await call('GET', '/health');
        expect(reply.status).toBe(200);
        expect(reply.headers.get('content-type') ?? '').toMatch(/^text\/plain/);
        expect(reply.raw).toBe('OK');
        expect(reply.headers.get('x-service-version')).toBe(packageVersion);
      });

      it('GET /subscriptions is the list route: 200 with a JSON array', async () => {
        const reply = await call('GET', '/subscriptions');
        expect(reply.status, reply.raw).toBe(200);
        expect(reply.headers.get('content-type') ?? '').toMatch(/^application\/json/);
        expect(Array.isArray(reply.body)).toBe(true);
      });

      it('GET /subscriptions/{id} is the get route: its own 404 for an unknown id', async () => {
        for (const id of [randomUUID(), 'not-a-uuid']) {
          const reply = await call('GET', `/subscriptions/${id}`);
          expectProblem(reply, 404);
          expect(reply.body.detail).toContain(`Subscription ${id}`);
          expect(reply.body.detail).not.toMatch(/CurrentState/);
        }
      });

      it('GET /publishers/{id} is the get route: its own 404 for an unknown id', async () => {
        const id = randomUUID();
        const reply = await call('GET', `/publishers/${id}`);
        expectProblem(reply, 404);
        expect(reply.body.detail).toContain(`Publisher ${id}`);
        expect(reply.body.detail).not.toMatch(/CurrentState/);
      });

      it('the specific GET routes answer 200 with their own bodies once there is data', async () => {
        const { node, address } = freshNode();
        const consumer = await newConsumer();
        const publisher = await registerPublisher(address);
        const created = await call('POST', '/subscriptions', {
          body: { ResourceAddress: node, EndpointUri: consumer.url },
        });
        expect(created.status, created.raw).toBe(201);

        const { SigningSecret: _, ...info } = created.body;

        const list = await call('GET', '/publishers');
        expect(list.status, list.raw).toBe(200);
        expect(list.body).toContainEqual({
          SubscriptionId: publisher.id,
          UriLocation: publisher.location,
          ResourceAddress: address,
          EndpointUri: `${host.url}${address}/CurrentState`,
        });

        const one = await call('GET', `/publishers/${publisher.id}`);
        expect(one.status, one.raw).toBe(200);
        expect(one.body).toEqual({
          SubscriptionId: publisher.id,
          UriLocation: `${host.url}/publishers/${publisher.id}`,
          ResourceAddress: address,
          EndpointUri: `${host.url}${address}/CurrentState`,
        });

        const subscription = await call('GET', `/subscriptions/${created.body.SubscriptionId}`);
        expect(subscription.status, subscription.raw).toBe(200);
        expect(subscription.body).toEqual(info);

        const subscriptions = await call('GET', '/subscriptions');
        expect(subscriptions.status).toBe(200);
        expect(subscriptions.body).toContainEqual(info);
      });

      it('POST /publishers/{id}/events is routed (404 for an unknown publisher, 400 for a bad event)', async () => {
        const { node, address } = freshNode();
        const unknown = await publish(randomUUID(), lockStateEvent({ node }));
        expectProblem(unknown, 404);
        expect(unknown.body.detail).toMatch(/Publisher .* does not exist/);

        const publisher = await registerPublisher(address);
        const bad = await publish(publisher.id, { ...lockStateEvent({ node }), specversion: '0.3' });
        expectProblem(bad, 400);
        expect(bad.body.detail).toContain('specversion');
      });

      it('DELETE /subscriptions/{id} and DELETE /publishers/{id} are routed (404 for unknown ids)', async () => {
        expectProblem(await call('DELETE', `/subscriptions/${randomUUID()}`), 404);
        expectProblem(await call('DELETE', `/publishers/${randomUUID()}`), 404);
      });

      it('a method a path does not have is 405 with Allow and a problem document', async () => {
        for (const [method, path, allow] of [
          ['PUT', '/subscriptions', 'DELETE, GET, HEAD, POST'],
          ['PATCH', `/subscriptions/${randomUUID()}`, 'DELETE, GET, HEAD'],
          ['POST', '/health', 'GET, HEAD'],
          ['PUT', `/publishers/${randomUUID()}`, 'DELETE, GET, HEAD'],
          ['GET', `/publishers/${randomUUID()}/events`, 'POST'],
          ['POST', `${freshNode().node}/sync/CurrentState`, 'GET, HEAD'],
          ['DELETE', '/openapi.json', 'GET, HEAD'],
        ] as const) {
          const reply = await call(method, path);
          expectProblem(reply, 405);
          expect(reply.headers.get('allow'), `${method} ${path}`).toBe(allow);
        }
        expectProblem(await call('POST', '/no-such-collection'), 404);
      });

      it('a trailing or doubled slash is a 404 on every route: DELETE /subscriptions/ (an empty $ID) deletes nothing', async () => {
        const { address } = freshNode();
        await registerPublisher(address);
        const consumer = await newConsumer();
        const created = await call('POST', '/subscriptions', {
          body: { ResourceAddress: address, EndpointUri: consumer.url },
        });
        expect(created.status, created.raw).toBe(201);
        const id = created.body.SubscriptionId;
        for (const [method, path] of [
          ['DELETE', '/subscriptions/'],
          ['DELETE', '/subscriptions//'],
          ['DELETE', '//subscriptions'],
          ['DELETE', '/publishers/'],
          ['GET', '/subscriptions/'],
          ['POST', '/subscriptions/'],
          ['GET', `/subscriptions/${id}/`],
          ['DELETE', `/subscriptions/${id}/`],
          ['POST', '/subscriptions//secret/rotate'],
          ['POST', '/publishers//events'],
          ['GET', '/health/'],
        ] as const) {
          const reply = await call(method, path, method === 'POST' ? { body: {} } : {});
          expectProblem(reply, 404);
          expect(reply.body.detail, `${method} ${path}`).toMatch(/empty segment|No resource at/);
        }
        expect((await call('GET', `/subscriptions/${id}`)).status).toBe(200);
      });

      it('HEAD on GET routes answers like GET without a body', async () => {
        const health = await call('HEAD', '/health');
        expect(health.status).toBe(200);
        expect(health.raw).toBe('');
        expect((await call('HEAD', '/subscriptions')).status).toBe(200);
      });

      it('GET /openapi.json serves the OpenAPI 3.1 document', async () => {
        const reply = await call('GET', '/openapi.json');
        expect(reply.status).toBe(200);
        expect(reply.body.openapi).toBe('3.1.0');
        expect(Object.keys(reply.body.paths)).toContain('/subscriptions/{subscriptionId}/secret/rotate');
      });

      it('GET /{ResourceAddress}/CurrentState is served by the catch-all', async () => {
        const { address } = freshNode();
        const reply = await call('GET', `${address}/CurrentState`);
        expectProblem(reply, 404);
        expect(reply.body.detail).toContain(`No publisher is registered at ${address}`);
      });
    });

    describe('CurrentState over HTTP', () => {
      const root = host.freshPrefix();
      const address = `${root}/site-3/rack-1/node-7/sync/ptp-status/lock-state`;
      let event: ReturnType<typeof lockStateEvent>;

      beforeAll(async () => {
        const publisher = await registerPublisher(address);
        event = lockStateEvent({ node: `${root}/site-3/rack-1/node-7`, value: 'LOCKED' });
        const accepted = await publish(publisher.id, event);
        expect(accepted.status, accepted.raw).toBe(202);
      });

      it('answers 200 with the latest event for an address of many segments', async () => {
        const reply = await call('GET', `${address}/CurrentState`);
        expect(reply.status, reply.raw).toBe(200);
        expect(reply.headers.get('content-type') ?? '').toMatch(/^application\/json/);
        expect(reply.body).toEqual(event);
      });

      it('decodes a percent-encoded segment (node%2D7)', async () => {
        const reply = await call(
          'GET',
          `${root}/site-3/rack-1/node%2D7/sync/ptp-status/lock-state/CurrentState`,
        );
        expect(reply.status, reply.raw).toBe(200);
        expect(reply.body).toEqual(event);
      });

      it('reads the address percent-encoded as one segment (%2F, as a generated client writes it) and as API Gateway delivers that (a doubled slash)', async () => {
        for (const path of [
          `/${encodeURIComponent(address)}`,
          `/${encodeURIComponent(address.slice(1))}`,
          `/${address}`,
          address.replace('/sync/', '/sync%2F'),
        ]) {
          const reply = await call('GET', `${path}/CurrentState`);
          expect(reply.status, `${path}: ${reply.raw}`).toBe(200);
          expect(reply.body).toEqual(event);
        }
      });

      it('accepts the address with a trailing "/" before /CurrentState (normalised away)', async () => {
        const reply = await call('GET', `${address}//CurrentState`);
        expect(reply.status, reply.raw).toBe(200);
        expect(reply.body).toEqual(event);
      });

      it('serves addresses whose cluster is named like a route (subscriptions, publishers, health)', async () => {
        for (const cluster of ['subscriptions', 'publishers', 'health']) {
          const node = `/${cluster}/site-${randomUUID().slice(0, 8)}/node-7`;
          if (host.nodeScope) {
            // Every address a node serves begins with its own cluster: such an address is another
            // node's, and the CurrentState route (not the collection's) says so.
            const reply = await call('GET', `${node}/sync/ptp-status/lock-state/CurrentState`);
            expectProblem(reply, 404);
            expect(reply.body.detail, cluster).toMatch(/not available on this node/);
            continue;
          }
          const publisher = await registerPublisher(`${node}/sync/ptp-status/lock-state`);
          const published = lockStateEvent({ node });
          expect((await publish(publisher.id, published)).status).toBe(202);
          const reply = await call('GET', `${node}/sync/ptp-status/lock-state/CurrentState`);
          expect(reply.status, `${cluster}: ${reply.raw}`).toBe(200);
          expect(reply.body).toEqual(published);
        }
      });

      it('404 problem for /CurrentState under an address with no publisher', async () => {
        const reply = await call(
          'GET',
          `${root}/site-3/rack-1/node-8/sync/ptp-status/lock-state/CurrentState`,
        );
        expectProblem(reply, 404);
      });

      it('404 problem for a covering address that is not itself a publisher (no inclusive pull)', async () => {
        const reply = await call('GET', `${root}/site-3/rack-1/node-7/sync/CurrentState`);
        expectProblem(reply, 404);
      });

      it('404 problem for a path without /CurrentState', async () => {
        for (const path of [
          address,
          `${address}/currentstate`,
          `${address}/CurrentState/extra`,
          '/CurrentState',
        ]) {
          const reply = await call('GET', path);
          expectProblem(reply, 404);
        }
      });

      it('400 problem for a malformed address', async () => {
        for (const path of [
          `${root}/site-3/no*de/sync/CurrentState`, // wildcard
          `${root}/site-3/node%2A7/sync/CurrentState`, // encoded wildcard
          `${root}/site-3/node%207/sync/CurrentState`, // encoded space
          `${root}/site-3/node%2F%2F7/sync/CurrentState`, // an encoded empty segment
          `${root}/site-3/node,7/sync/CurrentState`, // character outside the segment set
        ]) {
          const reply = await call('GET', path);
          expect(reply.status, `${path}: ${reply.raw}`).toBe(400);
          expectProblem(reply, 400);
        }
      });

      it('400 problem for broken percent-encoding (%ZZ), answered by the HTTP layer before any handler', async () => {
        // API Gateway answers such a URL without invoking a function; npm start's HTTP server
        // (scripts/offline-hapi.cjs) and the node's (agent/serve/http-server.ts) say what to fix.
        const reply = await call('GET', `${root}/site-3/node%ZZ/sync/CurrentState`);
        expectProblem(reply, 400);
        expect(reply.body.detail).toMatch(/percent-encoding/);
      });
    });

    describe('the full user flow', () => {
      const { node, address } = freshNode();
      const subscribed = `${node}/sync`; // inclusive: covers the lock-state publisher under it
      let consumer: Consumer;
      let publisherId: string;
      let subscription: {
        SubscriptionId: string;
        UriLocation: string;
        ResourceAddress: string;
        EndpointUri: string;
      };
      let signingSecret: string;
      let event: ReturnType<typeof lockStateEvent>;

      it('registers a publisher: 201 with Location equal to UriLocation', async () => {
        const reply = await call('POST', '/publishers', { body: { ResourceAddress: `${address}/` } });
        expect(reply.status, reply.raw).toBe(201);
        expect(reply.body.SubscriptionId).toMatch(UUID_V4);
        expect(reply.body.ResourceAddress).toBe(address); // trailing "/" removed
        expect(reply.body.UriLocation).toBe(`${host.url}/publishers/${reply.body.SubscriptionId}`);
        expect(reply.headers.get('location')).toBe(reply.body.UriLocation);
        // No EndpointUri given: the record names where its current state is pulled (sdk-go needs one).
        expect(reply.body.EndpointUri).toBe(`${host.url}${address}/CurrentState`);
        publisherId = reply.body.SubscriptionId;

        const again = await call('POST', '/publishers', { body: { ResourceAddress: address } });
        expectProblem(again, 409);
        expect(again.headers.get('location')).toBe(reply.body.UriLocation);
        expect(again.body.detail).toContain(reply.body.UriLocation);
      });

      it('CurrentState is 404 while the publisher has published nothing', async () => {
        const reply = await call('GET', `${address}/CurrentState`);
        expectProblem(reply, 404);
        expect(reply.body.detail).toMatch(/not published/);
      });

      it('subscribes a consumer: 201, Location = UriLocation = http://127.0.0.1:<port>/.../subscriptions/<uuid>', async () => {
        consumer = await newConsumer();
        const reply = await call('POST', '/subscriptions', {
          body: { ResourceAddress: subscribed, EndpointUri: consumer.url, SubscriptionId: 'ignored' },
        });
        expect(reply.status, reply.raw).toBe(201);
        expect(reply.headers.get('content-type') ?? '').toMatch(/^application\/json/);
        const id = reply.body.SubscriptionId;
        expect(id).toMatch(UUID_V4);
        const { SigningSecret, ...info } = reply.body;
        expect(info).toEqual({
          SubscriptionId: id,
          UriLocation: `${host.url}/subscriptions/${id}`,
          ResourceAddress: subscribed,
          EndpointUri: consumer.url,
        });
        expect(SigningSecret).toMatch(/^whsec_/);
        expect(reply.headers.get('location')).toBe(info.UriLocation);
        subscription = info;
        signingSecret = SigningSecret;
        // No state yet: no initial notification.
        expect(consumer.received).toHaveLength(0);
      });

      it('the UriLocation can be fetched as is', async () => {
        const response = await fetch(subscription.UriLocation, { redirect: 'manual' });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual(subscription);
      });

      it('lists it, also filtered by ResourceAddress; a malformed filter is 400', async () => {
        const filtered = await call(
          'GET',
          `/subscriptions?ResourceAddress=${encodeURIComponent(subscribed)}`,
        );
        expect(filtered.status, filtered.raw).toBe(200);
        expect(filtered.body).toEqual([subscription]);

        const other = await call(
          'GET',
          `/subscriptions?ResourceAddress=${encodeURIComponent(`${node}/other`)}`,
        );
        expect(other.status).toBe(200);
        expect(other.body).toEqual([]);

        expectProblem(await call('GET', `/subscriptions?ResourceAddress=${encodeURIComponent('/a/*')}`), 400);
      });

      it('publishes an event: 202, and the consumer receives it with the webhook headers', async () => {
        event = lockStateEvent({ node, value: 'HOLDOVER' });
        const before = Math.floor(Date.now() / 1000);
        const reply = await publish(publisherId, event);
        expect(reply.status, reply.raw).toBe(202);

        const [received] = await consumer.waitFor(1);
        if (!received) throw new Error('no notification');
        expect(received.method).toBe('POST');
        expect(received.path).toBe('/events');
        expect(received.body).toEqual(event);
        expect(received.headers['content-type']).toMatch(/^application\/json/);
        expect(received.headers['webhook-id']).toMatch(/\S/);
        const timestamp = Number(received.headers['webhook-timestamp']);
        expect(Number.isInteger(timestamp)).toBe(true);
        expect(timestamp).toBeGreaterThanOrEqual(before - 1);
        expect(timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 1);
        expect(received.headers['user-agent']).toBe(`${host.serviceName}/${packageVersion}`);
        // Tracing: the trace named to the producer (traceresponse) is the consumer's (traceparent).
        const trace = parseTraceparent(reply.headers.get('traceresponse') ?? undefined);
        expect(trace?.traceId, String(reply.headers.get('traceresponse'))).toMatch(/^[0-9a-f]{32}$/);
        expect(received.headers.traceparent).toMatch(new RegExp(`^00-${trace?.traceId}-[0-9a-f]{16}-01$`));
        // What a consumer does with standardwebhooks: it verifies, and a forged copy does not.
        const headers = {
          'webhook-id': String(received.headers['webhook-id']),
          'webhook-timestamp': String(received.headers['webhook-timestamp']),
          'webhook-signature': String(received.headers['webhook-signature']),
        };
        expect(new Webhook(signingSecret).verify(received.raw, headers)).toEqual(event);
        expect(() =>
          new Webhook(signingSecret).verify(received.raw.replace('HOLDOVER', 'LOCKED'), headers),
        ).toThrow();
      });

      it('CurrentState returns the event', async () => {
        const reply = await call('GET', `${address}/CurrentState`);
        expect(reply.status, reply.raw).toBe(200);
        expect(reply.body).toEqual(event);
      });

      it('a repeated event is 200, stored nowhere and delivered to no one', async () => {
        const reply = await publish(publisherId, event);
        expect(reply.status, reply.raw).toBe(200);
        expect(reply.body).toMatchObject({ accepted: false, reason: 'duplicate' });
        await host.waitForIdle(address);
        expect(consumer.received).toHaveLength(1);
      });

      it('an older event is 200 and does not replace the current state', async () => {
        const older = lockStateEvent({ node, value: 'FREERUN', time: '2020-01-01T00:00:00Z' });
        const reply = await publish(publisherId, older);
        expect(reply.status, reply.raw).toBe(200);
        expect(reply.body).toMatchObject({ accepted: false, reason: 'stale' });
        const current = await call('GET', `${address}/CurrentState`);
        expect(current.body).toEqual(event);
        await host.waitForIdle(address);
        expect(consumer.received).toHaveLength(1);
      });

      it('a second consumer subscribing now gets the current state as its initial notification', async () => {
        const second = await newConsumer();
        const reply = await call('POST', '/subscriptions', {
          body: { ResourceAddress: address, EndpointUri: second.url },
        });
        expect(reply.status, reply.raw).toBe(201);
        // The sanity check happens before the 201.
        expect(second.received).toHaveLength(1);
        const [initial] = second.received;
        expect(initial?.body).toEqual(event);
        expect(initial?.headers['content-type']).toMatch(/^application\/json/);
        expect(initial?.headers['webhook-id']).toMatch(/\S/);
        expect(initial?.headers['webhook-timestamp']).toMatch(/^\d+$/);
        expect(initial?.headers['user-agent']).toBe(`${host.serviceName}/${packageVersion}`);
        expect(parseTraceparent(String(initial?.headers.traceparent))).toBeDefined();
        const firstSecret = reply.body.SigningSecret;
        expect(verifiedBody(firstSecret, initial)).toEqual(event);

        // The second consumer rotates its secret: during the grace period both signatures are sent.
        const rotated = await call('POST', `/subscriptions/${reply.body.SubscriptionId}/secret/rotate`);
        expect(rotated.status, rotated.raw).toBe(200);
        const secondSecret = rotated.body.SigningSecret;

        // Both subscriptions now receive the next event.
        const next = lockStateEvent({ node, value: 'LOCKED' });
        expect((await publish(publisherId, next)).status).toBe(202);
        await second.waitFor(2);
        await consumer.waitFor(2);
        expect(second.received[1]?.body).toEqual(next);
        expect(consumer.received[1]?.body).toEqual(next);
        const v1 = String(second.received[1]?.headers['webhook-signature'])
          .split(' ')
          .filter((s) => s.startsWith('v1,'));
        expect(v1).toHaveLength(2); // beside them, the service's v1a
        expect(verifiedBody(secondSecret, second.received[1])).toEqual(next);
        expect(verifiedBody(firstSecret, second.received[1])).toEqual(next);
        expect(verifiedBody(signingSecret, consumer.received[1])).toEqual(next);
        expect(() => verifiedBody(secondSecret, consumer.received[1])).toThrow();
        event = next;
      });

      it('a consumer whose endpoint refuses the initial notification is 400 and not stored', async () => {
        const refusing = await newConsumer([{ status: 500 }]);
        const reply = await call('POST', '/subscriptions', {
          body: { ResourceAddress: address, EndpointUri: refusing.url },
        });
        expectProblem(reply, 400);
        expect(refusing.received).toHaveLength(1);
        const list = await call('GET', `/subscriptions?ResourceAddress=${encodeURIComponent(address)}`);
        expect(list.body.map((info: { EndpointUri: string }) => info.EndpointUri)).not.toContain(
          refusing.url,
        );
      });

      it('subscribing to an address with no publisher at or under it is 404', async () => {
        const reply = await call('POST', '/subscriptions', {
          body: { ResourceAddress: `${node}/nothing-here`, EndpointUri: consumer.url },
        });
        expectProblem(reply, 404);
      });

      it('the duplicate subscribe is 409 naming the existing subscription in Location', async () => {
        const received = consumer.received.length;
        const reply = await call('POST', '/subscriptions', {
          body: { ResourceAddress: `${subscribed}/`, EndpointUri: consumer.url },
        });
        expectProblem(reply, 409);
        expect(reply.headers.get('location')).toBe(subscription.UriLocation);
        expect(reply.body.detail).toContain(subscription.UriLocation);
        await host.waitForIdle(address);
        expect(consumer.received).toHaveLength(received); // no second initial notification
      });

      it('DELETE the subscription: 204 with an empty body; then GET and DELETE are 404', async () => {
        const reply = await call('DELETE', `/subscriptions/${subscription.SubscriptionId}`);
        expect(reply.status).toBe(204);
        expect(reply.raw).toBe('');
        expect(reply.headers.get('content-type')).toBeNull();
        expectProblem(await call('GET', `/subscriptions/${subscription.SubscriptionId}`), 404);
        expectProblem(await call('DELETE', `/subscriptions/${subscription.SubscriptionId}`), 404);
      });

      it('a deleted subscription receives nothing more', async () => {
        const received = consumer.received.length;
        expect((await publish(publisherId, lockStateEvent({ node, value: 'FREERUN' }))).status).toBe(202);
        await host.waitForIdle(address);
        expect(consumer.received).toHaveLength(received);
      });

      it('DELETE the publisher: 204, its state goes with it', async () => {
        const reply = await call('DELETE', `/publishers/${publisherId}`);
        expect(reply.status).toBe(204);
        expect(reply.raw).toBe('');
        expectProblem(await call('GET', `/publishers/${publisherId}`), 404);
        expectProblem(await call('GET', `${address}/CurrentState`), 404);
        expectProblem(await publish(publisherId, lockStateEvent({ node })), 404);
      });
    });

    describe('headers and bodies over HTTP', () => {
      it('400 problem for a malformed JSON body on every JSON route', async () => {
        const { address } = freshNode();
        const publisher = await registerPublisher(address);
        for (const path of ['/subscriptions', '/publishers', `/publishers/${publisher.id}/events`]) {
          const reply = await call('POST', path, { body: '{"ResourceAddress": ' });
          expectProblem(reply, 400);
          expect(reply.body.detail, path).toMatch(/JSON/);
        }
      });

      it('400 problem for a body that is JSON but not an object', async () => {
        for (const body of ['[]', '"text"', '42', 'null']) {
          expectProblem(await call('POST', '/subscriptions', { body }), 400);
          expectProblem(await call('POST', '/publishers', { body }), 400);
        }
      });

      it('400 problem for an empty body', async () => {
        expectProblem(await call('POST', '/publishers', { body: '' }), 400);
      });

      it('413 problem for a body over 64 KiB; exactly 64 KiB is read', async () => {
        const { address } = freshNode();
        const sized = (bytes: number) => {
          const head = `{"ResourceAddress":"${address}","padding":"`;
          const tail = '"}';
          return `${head}${'x'.repeat(bytes - head.length - tail.length)}${tail}`;
        };
        const over = await call('POST', '/publishers', { body: sized(64 * 1024 + 1) });
        expectProblem(over, 413);
        const overSubscribe = await call('POST', '/subscriptions', { body: sized(100 * 1024) });
        expectProblem(overSubscribe, 413);

        const exact = await call('POST', '/publishers', { body: sized(64 * 1024) });
        expect(exact.status, exact.raw).toBe(201); // unknown members are ignored
        const overEvent = await call('POST', `/publishers/${exact.body.SubscriptionId}/events`, {
          body: sized(65 * 1024),
        });
        expectProblem(overEvent, 413);
      });

      it('`curl -d` style requests (form content type, JSON body) are parsed as JSON', async () => {
        const { node, address } = freshNode();
        const form = { 'content-type': 'application/x-www-form-urlencoded' };
        const created = await call('POST', '/publishers', {
          body: JSON.stringify({ ResourceAddress: address }),
          headers: form,
        });
        expect(created.status, created.raw).toBe(201);
        expect(created.body.ResourceAddress).toBe(address);

        const event = lockStateEvent({ node });
        const published = await call('POST', `/publishers/${created.body.SubscriptionId}/events`, {
          body: JSON.stringify(event),
          headers: form,
        });
        expect(published.status, published.raw).toBe(202);

        const consumer = await newConsumer();
        const subscribed = await call('POST', '/subscriptions', {
          body: JSON.stringify({ ResourceAddress: address, EndpointUri: consumer.url }),
          headers: form,
        });
        expect(subscribed.status, subscribed.raw).toBe(201);
        expect(consumer.received[0]?.body).toEqual(event);
      });

      it('a JSON body sent as text/plain or with no content type is parsed too', async () => {
        const { address } = freshNode();
        const plain = await call('POST', '/publishers', {
          body: JSON.stringify({ ResourceAddress: address }),
          headers: { 'content-type': 'text/plain' },
        });
        expect(plain.status, plain.raw).toBe(201);

        const response = await fetch(`${host.url}/publishers`, {
          method: 'POST',
          redirect: 'manual',
          body: new Blob([JSON.stringify({ ResourceAddress: `${address}-2` })]), // no content-type at all
        });
        expect(response.status, await response.clone().text()).toBe(201);
        await response.body?.cancel();
      });

      it('application/json; charset=utf-8 is accepted', async () => {
        const { address } = freshNode();
        const reply = await call('POST', '/publishers', {
          body: { ResourceAddress: address },
          headers: { 'content-type': 'application/json; charset=utf-8' },
        });
        expect(reply.status, reply.raw).toBe(201);
      });

      it('400 problems name the member to fix', async () => {
        const consumer = await newConsumer();
        const missing = await call('POST', '/subscriptions', { body: { EndpointUri: consumer.url } });
        expectProblem(missing, 400);
        expect(missing.body.detail).toContain('ResourceAddress');

        const wildcard = await call('POST', '/subscriptions', {
          body: { ResourceAddress: '/c/site/*', EndpointUri: consumer.url },
        });
        expectProblem(wildcard, 400);
        expect(wildcard.body.detail).toMatch(/wildcard/);

        const badUri = await call('POST', '/subscriptions', {
          body: { ResourceAddress: freshNode().address, EndpointUri: 'ftp://example.com/x' },
        });
        expectProblem(badUri, 400);
        expect(badUri.body.detail).toContain('EndpointUri');
      });
    });

    describe('concurrency over HTTP', () => {
      const parallel = (count: number, send: () => Promise<Reply>) =>
        Promise.all(Array.from({ length: count }, send));
      const summary = (replies: Reply[]) =>
        JSON.stringify(
          replies.map((reply) =>
            isLambdaError(reply) ? `${reply.status}:${reply.body.errorType}` : reply.status,
          ),
        );

      it('50 concurrent identical POST /publishers from cold: one 201, 49 409s, no Lambda time-out', async () => {
        // No warm-up: what a new user sees when a burst reaches `npm start`. Each concurrent request
        // gets a fresh offline worker; a worker that misses the 10 s Lambda time-out is answered by
        // offline itself (as HTTP 200 with errorType/stackTrace), which is what this test catches.
        // A node runs the functions in its agent's process: the same burst, one store.
        const { address } = freshNode();
        const replies = await parallel(50, () =>
          call('POST', '/publishers', { body: { ResourceAddress: address } }),
        );
        expect(replies.filter(isLambdaError), summary(replies)).toHaveLength(0);
        const created = replies.filter((reply) => reply.status === 201);
        const conflicts = replies.filter((reply) => reply.status === 409);
        expect(created, summary(replies)).toHaveLength(1);
        expect(conflicts, summary(replies)).toHaveLength(49);
        const location = created[0]?.headers.get('location');
        for (const conflict of conflicts) expect(conflict.headers.get('location')).toBe(location);
      }, 60_000);

      it('50 concurrent identical POST /subscriptions: one 201, 49 409s naming the same Location', async () => {
        // Offline runs one worker per in-flight request: start 50 createSubscription workers first
        // (invalid bodies, 400), so that this test is about the service, not about cold starts (on
        // a node, one harmless wave).
        for (let wave = 0; wave < 4; wave++) {
          const warm = await parallel(50, () => call('POST', '/subscriptions', { body: {} }));
          if (!warm.some(isLambdaError)) break;
        }
        const { node, address } = freshNode();
        await registerPublisher(address);
        const consumer = await newConsumer();
        const body = { ResourceAddress: `${node}/sync`, EndpointUri: consumer.url };
        const replies = await parallel(50, () => call('POST', '/subscriptions', { body }));

        const created = replies.filter((reply) => reply.status === 201);
        const conflicts = replies.filter((reply) => reply.status === 409);
        expect(created, summary(replies)).toHaveLength(1);
        expect(conflicts, summary(replies)).toHaveLength(49);

        const location = created[0]?.body.UriLocation;
        expect(location).toMatch(new RegExp(`^${host.url}/subscriptions/[0-9a-f-]{36}$`));
        expect(created[0]?.headers.get('location')).toBe(location);
        for (const conflict of conflicts) {
          expectProblem(conflict, 409);
          expect(conflict.headers.get('location')).toBe(location);
          expect(conflict.body.detail).toContain(location);
        }
        const listed = await call(
          'GET',
          `/subscriptions?ResourceAddress=${encodeURIComponent(`${node}/sync`)}`,
        );
        const { SigningSecret: _, ...info } = created[0]?.body ?? {};
        expect(listed.body).toEqual([info]);
      }, 120_000);
    });

    describe('fleet lists over HTTP', () => {
      it('pages GET /subscriptions by following absolute Link rel="next" URLs; a forged cursor is 400', async () => {
        const node = `${host.freshPrefix()}/site-1/node-1`;
        await registerPublisher(`${node}/sync`);
        const consumer = await newConsumer();
        for (let i = 0; i < 5; i++) {
          const reply = await call('POST', '/subscriptions', {
            body: { ResourceAddress: `${node}/sync`, EndpointUri: `${consumer.url}/${i}` },
          });
          expect(reply.status, reply.raw).toBe(201);
        }
        const filter = `ResourceAddress=${encodeURIComponent(`${node}/sync`)}`;
        const seen: string[] = [];
        let url: string | undefined = `${host.url}/subscriptions?${filter}&limit=2`;
        let pages = 0;
        while (url) {
          expect(url.startsWith(`${host.url}/subscriptions?`), url).toBe(true);
          const reply = await call('GET', url.slice(host.url.length));
          expect(reply.status, reply.raw).toBe(200);
          seen.push(...reply.body.map((s: { SubscriptionId: string }) => s.SubscriptionId));
          pages++;
          url = /^<([^>]+)>; rel="next"$/.exec(reply.headers.get('link') ?? '')?.[1];
        }
        expect(pages).toBe(3);
        expect(new Set(seen).size).toBe(5);

        // The filtered list's cursor, replayed on the unfiltered list: another list, so 400.
        const first = await call('GET', `/subscriptions?${filter}&limit=2`);
        const cursor = new URL(
          /^<([^>]+)>/.exec(first.headers.get('link') ?? '')?.[1] ?? '',
        ).searchParams.get('cursor');
        expect(cursor).toBeTruthy();
        expectProblem(
          await call('GET', `/subscriptions?limit=2&cursor=${encodeURIComponent(cursor ?? '')}`),
          400,
        );

        expectProblem(await call('GET', `/subscriptions?${filter}&limit=2&cursor=eyJ9.AAAA`), 400);
        expectProblem(await call('GET', '/subscriptions?limit=0'), 400);
      });

      it('a repeated query parameter is one value, its values joined by commas (as API Gateway gives it)', async () => {
        const limit = await call('GET', '/subscriptions?limit=2&limit=3');
        expectProblem(limit, 400);
        expect(limit.body.detail).toContain('got "2,3"');
        const { node } = freshNode();
        const filter = await call(
          'GET',
          `/subscriptions?ResourceAddress=${encodeURIComponent(node)}&ResourceAddress=${encodeURIComponent(node)}`,
        );
        expectProblem(filter, 400);
      });

      it('GET /publishers?ResourceAddress= lists the publishers at or under the node only', async () => {
        const node = `${host.freshPrefix()}/site-1/node-1`;
        await registerPublisher(`${node}/sync/ptp-status/lock-state`);
        await registerPublisher(`${node}/sync/sync-status/sync-state`);
        await registerPublisher(`${node.replace(/1$/, '2')}/sync/ptp-status/lock-state`);

        const reply = await call('GET', `/publishers?ResourceAddress=${encodeURIComponent(node)}`);

        expect(reply.status, reply.raw).toBe(200);
        expect(reply.headers.get('link')).toBeNull();
        expect(reply.body.map((p: { ResourceAddress: string }) => p.ResourceAddress).sort()).toEqual([
          `${node}/sync/ptp-status/lock-state`,
          `${node}/sync/sync-status/sync-state`,
        ]);
        expectProblem(
          await call('GET', `/publishers?ResourceAddress=${encodeURIComponent(`${node}/gnss`)}`),
          404,
        );
      });
    });

    describe("owners and a subscription's own views over HTTP", () => {
      it('owners are named by X-Consumer-Id (the local stage): another owner neither reads, lists nor deletes them', async () => {
        const { address } = freshNode();
        await registerPublisher(address);
        const consumer = await newConsumer();
        const alice = { 'x-consumer-id': 'alice@contract' };
        const bob = { 'x-consumer-id': 'bob@contract' };
        const created = await call('POST', '/subscriptions', {
          body: { ResourceAddress: address, EndpointUri: consumer.url },
          headers: alice,
        });
        expect(created.status, created.raw).toBe(201);
        const { SigningSecret: _, ...info } = created.body;
        const path = `/subscriptions/${info.SubscriptionId}`;

        expectProblem(await call('GET', path, { headers: bob }), 404);
        expectProblem(await call('DELETE', path, { headers: bob }), 404);
        expectProblem(await call('GET', path), 404); // nor the anonymous caller
        const filter = `?ResourceAddress=${encodeURIComponent(address)}`;
        expect((await call('GET', `/subscriptions${filter}`, { headers: bob })).body).toEqual([]);
        expect((await call('GET', `/subscriptions${filter}`)).body).toEqual([]);
        expect((await call('DELETE', '/subscriptions', { headers: bob })).status).toBe(204);

        expect((await call('GET', path, { headers: alice })).body).toEqual(info);
        expect((await call('GET', `/subscriptions${filter}`, { headers: alice })).body).toEqual([info]);
        const invalid = await call('GET', '/subscriptions', { headers: { 'x-consumer-id': 'not a name' } });
        expectProblem(invalid, 400);
        expect(invalid.body.detail).toContain('X-Consumer-Id');
        expect((await call('DELETE', path, { headers: alice })).status).toBe(204);
      });

      it('deliveries, dead letters and redrive are routed for a subscription (404 for an unknown one); GET /signing-keys lists the v1a keys', async () => {
        const { node, address } = freshNode();
        const publisher = await registerPublisher(address);
        const consumer = await newConsumer();
        const created = await call('POST', '/subscriptions', {
          body: { ResourceAddress: address, EndpointUri: consumer.url },
        });
        expect(created.status, created.raw).toBe(201);
        const id = created.body.SubscriptionId;
        const event = lockStateEvent({ node, value: 'LOCKED' });
        expect((await publish(publisher.id, event)).status).toBe(202);
        await consumer.waitFor(1);
        await host.waitForIdle(address);

        const deliveries = await call('GET', `/subscriptions/${id}/deliveries`);
        expect(deliveries.status, deliveries.raw).toBe(200);
        expect(deliveries.body).toContainEqual(
          expect.objectContaining({
            ResourceAddress: address,
            LastDelivered: expect.objectContaining({ Source: event.source, Id: event.id, Time: event.time }),
          }),
        );
        const deadLetters = await call('GET', `/subscriptions/${id}/dead-letters`);
        expect(deadLetters.status, deadLetters.raw).toBe(200);
        expect(deadLetters.body).toEqual([]);
        const redriven = await call('POST', `/subscriptions/${id}/dead-letters/redrive`);
        expect(redriven.status, redriven.raw).toBe(200);

        const unknown = randomUUID();
        expectProblem(await call('GET', `/subscriptions/${unknown}/deliveries`), 404);
        expectProblem(await call('GET', `/subscriptions/${unknown}/dead-letters`), 404);
        expectProblem(await call('POST', `/subscriptions/${unknown}/dead-letters/redrive`), 404);

        const keys = await call('GET', '/signing-keys');
        expect(keys.status, keys.raw).toBe(200);
        expect(keys.body.Keys.length).toBeGreaterThan(0);
      });
    });

    describe('a client generated from GET /openapi.json (openapi-typescript + openapi-fetch)', () => {
      // What a consumer team does: generate types from the running service, call it with openapi-fetch.
      // The types are committed (test/support/generated), so the typecheck holds these calls to them.
      const clusterNode = freshNode();
      let client: Client<paths>;

      beforeAll(() => {
        client = createClient<paths>({ baseUrl: host.url });
        // Every reply the client gets must be one the document describes, as for `call`.
        client.use({
          async onResponse({ request, response }) {
            assertDocumented(request.method, new URL(request.url).pathname, {
              status: response.status,
              headers: Object.fromEntries(response.headers.entries()),
              rawBody: await response.clone().text(),
            });
          },
        });
      });

      it('GET /openapi.json generates exactly the committed types', async () => {
        const served = await call('GET', '/openapi.json');
        const generated = COMMENT_HEADER + astToString(await openapiTS(served.body));
        const committed = await readFile(
          new URL('../support/generated/ocloud-api.d.ts', import.meta.url),
          'utf8',
        );
        expect(
          generated === committed,
          'regenerate: npx openapi-typescript lib/http/openapi.json -o test/support/generated/ocloud-api.d.ts',
        ).toBe(true);
      });

      it('publishes numbers, and reads back through CurrentState what sdk-go can decode, by a %2F-encoded address', async () => {
        const created = await client.POST('/publishers', { body: { ResourceAddress: clusterNode.address } });
        expect(created.response.status).toBe(201);
        const publisherId = created.data?.SubscriptionId ?? '';
        const event = lockStateEvent({ node: clusterNode.node });
        // Red Hat-shaped: the state, then the offset of the node's interface, the offset a JSON number.
        const published = await client.POST('/publishers/{publisherId}/events', {
          params: { path: { publisherId } },
          body: {
            id: event.id,
            specversion: '1.0',
            source: event.source,
            type: event.type,
            time: event.time,
            data: {
              version: '1.0',
              values: [
                {
                  ResourceAddress: clusterNode.address,
                  data_type: 'notification',
                  value_type: 'enumeration',
                  value: 'HOLDOVER',
                },
                {
                  ResourceAddress: `${clusterNode.node}/ens5fx/master`,
                  data_type: 'metric',
                  value_type: 'decimal64.3',
                  value: -3,
                },
              ],
            },
          },
        });
        expect(published.response.status).toBe(202);

        // openapi-fetch percent-encodes the path parameter: /%2Fcluster%2Fsite-3%2F…/CurrentState.
        for (const ResourceAddress of [clusterNode.address, clusterNode.address.slice(1)]) {
          const current = await client.GET('/{ResourceAddress}/CurrentState', {
            params: { path: { ResourceAddress } },
          });
          expect(new URL(current.response.url).pathname).toContain('%2F');
          expect(current.response.status, JSON.stringify(current.error)).toBe(200);
          const decoded = decodeLikeSdkGo(JSON.stringify(current.data));
          expect(decoded.ID).toBe(event.id);
          expect(decoded.Data?.Values.map((v) => v.Value)).toEqual(['HOLDOVER', -3]);
        }
      });

      it('subscribes, reads, lists; an empty subscriptionId is a 404 that deletes nothing; then deletes', async () => {
        const consumer = await newConsumer();
        const created = await client.POST('/subscriptions', {
          body: { ResourceAddress: clusterNode.address, EndpointUri: consumer.url },
        });
        expect(created.response.status, JSON.stringify(created.error)).toBe(201);
        const subscriptionId = created.data?.SubscriptionId ?? '';
        // The initial notification decodes with sdk-go's rules too.
        const [initial] = await consumer.waitFor(1);
        expect(decodeLikeSdkGo(initial?.raw ?? '').Data?.Values.map((v) => v.Value)).toEqual([
          'HOLDOVER',
          -3,
        ]);

        const read = await client.GET('/subscriptions/{subscriptionId}', {
          params: { path: { subscriptionId } },
        });
        expect(read.data?.EndpointUri).toBe(consumer.url);
        const listed = await client.GET('/subscriptions', { params: { query: {} } });
        expect(listed.data?.map((s) => s.SubscriptionId)).toContain(subscriptionId);

        // A script's empty variable: openapi-fetch writes DELETE …/subscriptions/ for it.
        const empty = await client.DELETE('/subscriptions/{subscriptionId}', {
          params: { path: { subscriptionId: '' } },
        });
        expect(empty.response.status).toBe(404);
        expect(empty.error?.detail).toContain('empty segment');
        expect(
          (await client.GET('/subscriptions/{subscriptionId}', { params: { path: { subscriptionId } } }))
            .response.status,
        ).toBe(200);

        const deleted = await client.DELETE('/subscriptions/{subscriptionId}', {
          params: { path: { subscriptionId } },
        });
        expect(deleted.response.status).toBe(204);
        const gone = await client.GET('/subscriptions/{subscriptionId}', {
          params: { path: { subscriptionId } },
        });
        expect(gone.response.status).toBe(404);
      });
    });

    describe('table-wide: delete all', () => {
      it('DELETE /subscriptions: 204 with an empty body, then the list is []', async () => {
        const reply = await call('DELETE', '/subscriptions');
        expect(reply.status, reply.raw).toBe(204);
        expect(reply.raw).toBe('');
        const list = await call('GET', '/subscriptions');
        expect(list.status).toBe(200);
        expect(list.raw).toBe('[]');

        const again = await call('DELETE', '/subscriptions');
        expect(again.status).toBe(204);
        expect(again.raw).toBe('');
      });
    });
  });
}
