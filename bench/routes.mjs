// @ts-check
/**
 * One entry per API route: how to build a request for the real handler, and the bare store calls
 * that route has to make for the same request (the same SDK commands with the same keys, no
 * middleware, no validation). Each sample gets fresh data, prepared outside the timed part.
 */
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import { BatchGetCommand, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { httpApiEvent, lambdaContext, lockStateEvent, nextTime, TABLE_NAME, unique } from './common.mjs';

const T = TABLE_NAME;
const owner = (/** @type {string} */ p) => encodeURIComponent(p);
const subKey = (
  /** @type {string} */ principal,
  /** @type {string} */ address,
  /** @type {string} */ endpoint,
) => ({
  pk: `SUBKEY#${createHash('sha256').update(`${principal}\n${address}\n${endpoint}`).digest('base64url')}`,
  sk: 'SUBKEY',
});
const shard = (/** @type {string} */ kind) => ({
  pk: 'COUNTERS',
  sk: `${kind}#${Math.floor(Math.random() * 10)}`,
});
const treePk = (/** @type {string} */ a) =>
  `TREE#${a.indexOf('/', 1) === -1 ? a : a.slice(0, a.indexOf('/', 1))}`;
const arn = (/** @type {string} */ name) => `arn:aws:iam::123456789012:user/${name}`;

/**
 * @typedef {{ handler: (event: unknown, context: unknown) => Promise<any> }} Bundle
 * @typedef {{ event: unknown, expect: number, bare: () => Promise<unknown> }} Sample
 * @typedef {{ name: string, fn: string, method: string, sample: (fx: Fixtures) => Promise<Sample> }} Route
 * @typedef {import('@aws-sdk/lib-dynamodb').DynamoDBDocumentClient} Doc
 */

/** Seed data and helpers every route draws on. */
export class Fixtures {
  /**
   * @param {Doc} db the bare client
   * @param {Record<string, Bundle>} handlers bundles used to seed data through the real API
   * @param {string} consumerUrl a local endpoint that answers 204
   * @param {string} queueUrl the local queue the handlers enqueue to
   */
  constructor(db, handlers, consumerUrl, queueUrl) {
    this.db = db;
    this.handlers = handlers;
    this.consumerUrl = consumerUrl;
    this.queueUrl = queueUrl;
    this.agent = new http.Agent({ keepAlive: true });
  }

  /** @param {string} fn @param {Parameters<typeof httpApiEvent>[0]} options @param {number} expect */
  async call(fn, options, expect) {
    const handler = this.handlers[fn];
    if (!handler) throw new Error(`no bundle for ${fn}`);
    const response = await handler.handler(httpApiEvent(options), lambdaContext());
    if (response.statusCode !== expect) {
      throw new Error(`seeding ${fn}: expected ${expect}, got ${response.statusCode} ${response.body}`);
    }
    return response.body ? JSON.parse(response.body) : undefined;
  }

  /** A publisher at /<cluster>/site-1/node-1/sync/ptp-status/lock-state, optionally with a state. */
  async publisher(withState = true) {
    const node = `/${unique('bench')}/site-1/node-1`;
    const address = `${node}/sync/ptp-status/lock-state`;
    const record = await this.call(
      'createPublisher',
      { method: 'POST', path: '/publishers', body: { ResourceAddress: address } },
      201,
    );
    const id = record.SubscriptionId;
    if (withState) await this.publish(id, node);
    return { id, node, address };
  }

  /** @param {string} id @param {string} node */
  publish(id, node) {
    const body = lockStateEvent(node, nextTime());
    const options = {
      method: 'POST',
      path: `/publishers/${id}/events`,
      pathParameters: { publisherId: id },
      body,
    };
    return this.call('publishEvent', options, 202);
  }

  /** @param {string} principal @param {string} address */
  async subscription(principal, address) {
    const body = { ResourceAddress: address, EndpointUri: `${this.consumerUrl}/${randomUUID()}` };
    const info = await this.call(
      'createSubscription',
      { method: 'POST', path: '/subscriptions', body, principal },
      201,
    );
    return { id: info.SubscriptionId, principal, address, endpoint: body.EndpointUri };
  }

  async seed() {
    this.reading = await this.publisher(true);
    this.readingSubs = [];
    for (let i = 0; i < 10; i++)
      this.readingSubs.push(await this.subscription(arn('reader'), this.reading.node));
    this.stateless = await this.publisher(false);
  }

  /** One message to the local queue, as the handlers' queue adapter sends it. */
  async enqueue(/** @type {string} */ queue, /** @type {unknown} */ message) {
    const response = await fetch(`${this.queueUrl}/queues/${queue}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ body: JSON.stringify(message) }] }),
    });
    await response.body?.cancel();
  }

  /** The sanity-check POST, as the bare baseline makes it (a keep-alive agent, like http-sender). */
  sanityPost(/** @type {string} */ endpoint, /** @type {unknown} */ event) {
    return new Promise((resolve, reject) => {
      const request = http.request(
        endpoint,
        { method: 'POST', agent: this.agent, headers: { 'content-type': 'application/json' } },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode));
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify(event));
    });
  }
}

/** @param {Doc} db @param {Record<string, unknown>} key @param {boolean} [consistent] */
/** The counter change a create or delete transaction makes, as the store writes it. */
const countBy = (/** @type {string} */ kind, /** @type {number} */ delta) => ({
  Update: {
    TableName: T,
    Key: shard(kind),
    UpdateExpression: 'ADD n :delta',
    ExpressionAttributeValues: { ':delta': delta },
  },
});

const get = (db, key, consistent = true) =>
  db.send(new GetCommand({ TableName: T, Key: key, ConsistentRead: consistent }));

/** @param {Doc} db @param {import('@aws-sdk/lib-dynamodb').QueryCommandInput} input */
const query = (db, input) => db.send(new QueryCommand(input));

/** @type {Route[]} */
export const ROUTES = [
  {
    name: 'GET /health',
    fn: 'health',
    method: 'GET',
    sample: async (fx) => ({
      event: httpApiEvent({ method: 'GET', path: '/health' }),
      expect: 200,
      bare: () => get(fx.db, { pk: 'HEALTH', sk: 'HEALTH' }, false),
    }),
  },
  {
    name: 'GET /subscriptions/{id}',
    fn: 'getSubscription',
    method: 'GET',
    sample: async (fx) => {
      const s = fx.readingSubs?.[Math.floor(Math.random() * 10)];
      if (!s) throw new Error('not seeded');
      return {
        event: httpApiEvent({
          method: 'GET',
          path: `/subscriptions/${s.id}`,
          pathParameters: { subscriptionId: s.id },
          principal: s.principal,
        }),
        expect: 200,
        bare: () => get(fx.db, { pk: `SUB#${s.id}`, sk: 'SUB' }),
      };
    },
  },
  {
    name: 'GET /subscriptions',
    fn: 'listSubscriptions',
    method: 'GET',
    sample: async (fx) => ({
      event: httpApiEvent({ method: 'GET', path: '/subscriptions', principal: arn('reader') }),
      expect: 200,
      bare: () =>
        query(fx.db, {
          TableName: T,
          IndexName: 'byList',
          KeyConditionExpression: 'listPk = :pk',
          ExpressionAttributeValues: { ':pk': `SUBS#${owner(arn('reader'))}` },
        }),
    }),
  },
  {
    name: 'GET /{address}/CurrentState',
    fn: 'getCurrentState',
    method: 'GET',
    sample: async (fx) => {
      const address = fx.reading?.address ?? '';
      return {
        event: httpApiEvent({ method: 'GET', path: `${address}/CurrentState` }),
        expect: 200,
        bare: () => get(fx.db, { pk: `PUBADDR#${address}`, sk: 'PUBADDR' }),
      };
    },
  },
  {
    name: 'GET /publishers/{id}',
    fn: 'getPublisher',
    method: 'GET',
    sample: async (fx) => {
      const id = fx.reading?.id ?? '';
      return {
        event: httpApiEvent({
          method: 'GET',
          path: `/publishers/${id}`,
          pathParameters: { publisherId: id },
        }),
        expect: 200,
        bare: () => get(fx.db, { pk: `PUB#${id}`, sk: 'PUB' }),
      };
    },
  },
  {
    name: 'GET /publishers',
    fn: 'listPublishers',
    method: 'GET',
    sample: async (fx) => ({
      event: httpApiEvent({ method: 'GET', path: '/publishers' }),
      expect: 200,
      bare: () =>
        query(fx.db, {
          TableName: T,
          IndexName: 'byList',
          KeyConditionExpression: 'listPk = :pk',
          ExpressionAttributeValues: { ':pk': 'PUBS' },
        }),
    }),
  },
  {
    name: 'POST /subscriptions',
    fn: 'createSubscription',
    method: 'POST',
    sample: async (fx) => {
      const principal = arn('creator');
      const node = fx.reading?.node ?? '';
      const mine = { ResourceAddress: node, EndpointUri: `${fx.consumerUrl}/${randomUUID()}` };
      const bare = { ResourceAddress: node, EndpointUri: `${fx.consumerUrl}/${randomUUID()}` };
      return {
        event: httpApiEvent({ method: 'POST', path: '/subscriptions', body: mine, principal }),
        expect: 201,
        bare: async () => {
          const key = subKey(principal, bare.ResourceAddress, bare.EndpointUri);
          const tree = await query(fx.db, {
            TableName: T,
            IndexName: 'publisherTree',
            KeyConditionExpression: 'treePk = :pk AND begins_with(treeSk, :prefix)',
            ExpressionAttributeValues: { ':pk': treePk(node), ':prefix': `${node}/` },
          });
          const keys = (tree.Items ?? []).map((item) => ({ pk: item.pk, sk: item.sk }));
          const states = await fx.db.send(
            new BatchGetCommand({ RequestItems: { [T]: { Keys: [key, ...keys], ConsistentRead: true } } }),
          );
          const state = states.Responses?.[T]?.find((item) => item.pk !== key.pk);
          const event = JSON.parse(String(state?.event));
          await fx.sanityPost(bare.EndpointUri, event);
          const id = randomUUID();
          const createdAt = new Date().toISOString();
          await fx.db.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Put: {
                    TableName: T,
                    Item: { ...key, subscriptionId: id },
                    ConditionExpression: 'attribute_not_exists(pk)',
                    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                  },
                },
                {
                  Put: {
                    TableName: T,
                    Item: {
                      pk: `SUB#${id}`,
                      sk: 'SUB',
                      addrPk: `SUBADDR#${node}`,
                      addrSk: `${owner(principal)}#${id}`,
                      listPk: `SUBS#${owner(principal)}`,
                      listSk: `${createdAt}#${id}`,
                      id,
                      resourceAddress: node,
                      endpointUri: bare.EndpointUri,
                      owner: principal,
                      createdAt,
                    },
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                },
                countBy('subscriptions', 1),
                {
                  Put: {
                    TableName: T,
                    Item: {
                      pk: `SUB#${id}`,
                      sk: `CURSOR#${state?.resourceAddress}`,
                      deliveredTimeKey: state?.timeKey,
                      deliveredEvent: `${event.source}#${event.id}`,
                      expiresAt: Math.ceil(Date.now() / 1000) + 15 * 24 * 3600,
                    },
                  },
                },
              ],
            }),
          );
        },
      };
    },
  },
  {
    name: 'DELETE /subscriptions/{id}',
    fn: 'deleteSubscription',
    method: 'DELETE',
    sample: async (fx) => {
      const address = fx.stateless?.node ?? '';
      const principal = arn('deleter');
      const [mine, bare] = [
        await fx.subscription(principal, address),
        await fx.subscription(principal, address),
      ];
      return {
        event: httpApiEvent({
          method: 'DELETE',
          path: `/subscriptions/${mine.id}`,
          pathParameters: { subscriptionId: mine.id },
          principal,
        }),
        expect: 204,
        bare: async () => {
          await get(fx.db, { pk: `SUB#${bare.id}`, sk: 'SUB' });
          await fx.db.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Delete: {
                    TableName: T,
                    Key: { pk: `SUB#${bare.id}`, sk: 'SUB' },
                    ConditionExpression: 'attribute_exists(pk)',
                  },
                },
                { Delete: { TableName: T, Key: subKey(principal, address, bare.endpoint) } },
                countBy('subscriptions', -1),
              ],
            }),
          );
        },
      };
    },
  },
  {
    name: 'DELETE /subscriptions',
    fn: 'deleteAllSubscriptions',
    method: 'DELETE',
    sample: async (fx) => {
      const address = fx.stateless?.node ?? '';
      const [mine, bare] = [arn(unique('all')), arn(unique('all'))];
      const bareSubs = [];
      for (let i = 0; i < 3; i++) {
        await fx.subscription(mine, address);
        bareSubs.push(await fx.subscription(bare, address));
      }
      return {
        event: httpApiEvent({ method: 'DELETE', path: '/subscriptions', principal: mine }),
        expect: 204,
        bare: async () => {
          const page = await query(fx.db, {
            TableName: T,
            IndexName: 'byList',
            KeyConditionExpression: 'listPk = :pk',
            ExpressionAttributeValues: { ':pk': `SUBS#${owner(bare)}` },
            Limit: 25,
          });
          const items = page.Items ?? [];
          await fx.db.send(
            new TransactWriteCommand({
              TransactItems: [
                ...items.flatMap((s) => [
                  {
                    Delete: {
                      TableName: T,
                      Key: { pk: `SUB#${s.id}`, sk: 'SUB' },
                      ConditionExpression: 'attribute_exists(pk)',
                    },
                  },
                  {
                    Delete: {
                      TableName: T,
                      Key: subKey(bare, String(s.resourceAddress), String(s.endpointUri)),
                    },
                  },
                ]),
                countBy('subscriptions', -items.length),
              ],
            }),
          );
          // The handler's query page ends where LastEvaluatedKey is absent: with Limit 25 and
          // three items, one query. (Both make the same number of requests.)
        },
      };
    },
  },
  {
    name: 'POST /publishers',
    fn: 'createPublisher',
    method: 'POST',
    sample: async (fx) => {
      const mine = `/${unique('bench')}/site-1/node-1/sync/ptp-status/lock-state`;
      const address = `/${unique('bench')}/site-1/node-1/sync/ptp-status/lock-state`;
      return {
        event: httpApiEvent({ method: 'POST', path: '/publishers', body: { ResourceAddress: mine } }),
        expect: 201,
        bare: () => {
          const id = randomUUID();
          const createdAt = new Date().toISOString();
          return fx.db.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Put: {
                    TableName: T,
                    Item: {
                      pk: `PUBADDR#${address}`,
                      sk: 'PUBADDR',
                      treePk: treePk(address),
                      treeSk: `${address}/`,
                      publisherId: id,
                      resourceAddress: address,
                    },
                    ConditionExpression: 'attribute_not_exists(pk)',
                    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                  },
                },
                {
                  Put: {
                    TableName: T,
                    Item: {
                      pk: `PUB#${id}`,
                      sk: 'PUB',
                      listPk: 'PUBS',
                      listSk: `${createdAt}#${id}`,
                      id,
                      resourceAddress: address,
                      createdAt,
                    },
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                },
                countBy('publishers', 1),
              ],
            }),
          );
        },
      };
    },
  },
  {
    name: 'DELETE /publishers/{id}',
    fn: 'deletePublisher',
    method: 'DELETE',
    sample: async (fx) => {
      const [mine, bare] = [await fx.publisher(false), await fx.publisher(false)];
      return {
        event: httpApiEvent({
          method: 'DELETE',
          path: `/publishers/${mine.id}`,
          pathParameters: { publisherId: mine.id },
        }),
        expect: 204,
        bare: async () => {
          const found = await get(fx.db, { pk: `PUB#${bare.id}`, sk: 'PUB' });
          await fx.db.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Delete: {
                    TableName: T,
                    Key: { pk: `PUB#${bare.id}`, sk: 'PUB' },
                    ConditionExpression: 'attribute_exists(pk)',
                  },
                },
                {
                  Delete: {
                    TableName: T,
                    Key: { pk: `PUBADDR#${found.Item?.resourceAddress}`, sk: 'PUBADDR' },
                    ConditionExpression: 'publisherId = :id',
                    ExpressionAttributeValues: { ':id': bare.id },
                  },
                },
                countBy('publishers', -1),
              ],
            }),
          );
        },
      };
    },
  },
  {
    name: 'POST /publishers/{id}/events',
    fn: 'publishEvent',
    method: 'POST',
    sample: async (fx) => {
      fx.publishing ??= [await fx.publisher(false), await fx.publisher(false)];
      const [mine, bare] = fx.publishing;
      if (!mine || !bare) throw new Error('not seeded');
      const body = lockStateEvent(mine.node, nextTime());
      const bareEvent = lockStateEvent(bare.node, nextTime());
      return {
        event: httpApiEvent({
          method: 'POST',
          path: `/publishers/${mine.id}/events`,
          pathParameters: { publisherId: mine.id },
          body,
        }),
        expect: 202,
        bare: async () => {
          // A warm publish: the handler knows the publisher's address from an earlier request.
          const acceptedAt = new Date();
          await fx.db.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Put: {
                    TableName: T,
                    Item: {
                      pk: `EVENT#${bare.id}#${bareEvent.source}#${bareEvent.id}`,
                      sk: 'EVENT',
                      expiresAt: Math.floor(acceptedAt.getTime() / 1000) + 604800,
                    },
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                },
                {
                  Update: {
                    TableName: T,
                    Key: { pk: `PUBADDR#${bare.address}`, sk: 'PUBADDR' },
                    UpdateExpression: 'SET #event = :event, timeKey = :timeKey, acceptedAt = :acceptedAt',
                    ConditionExpression:
                      'publisherId = :publisherId AND (attribute_not_exists(timeKey) OR timeKey <= :timeKey)',
                    ExpressionAttributeNames: { '#event': 'event' },
                    ExpressionAttributeValues: {
                      ':event': JSON.stringify(bareEvent),
                      ':timeKey': bareEvent.time,
                      ':acceptedAt': acceptedAt.toISOString(),
                      ':publisherId': bare.id,
                    },
                    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                  },
                },
              ],
            }),
          );
          // The ancestor queries happen later, in the fan-out function; the request enqueues once.
          await fx.enqueue('fan-out', {
            kind: 'fan-out',
            publisherId: bare.id,
            resourceAddress: bare.address,
            event: bareEvent,
            acceptedAt: acceptedAt.toISOString(),
          });
        },
      };
    },
  },
];
