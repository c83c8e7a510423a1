// @ts-check
/**
 * One entry per API route: how to build a request for the real handler, and the bare store calls
 * that route has to make for the same request (the same SDK commands with the same keys, no
 * middleware, no validation). Each sample gets fresh data, prepared outside the timed part.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { LOCAL_ACCOUNT } from '../scripts/local-queue/sqs-api.mjs';
import {
  acceptEventTransaction,
  createPublisherTransaction,
  deletePublisherTransaction,
  deleteSubscriptionTransaction,
  httpApiEvent,
  keys,
  lambdaContext,
  lockStateEvent,
  nextTime,
  publisherIdFor,
  retireAllTransaction,
  subscribeTransaction,
  subscriptionIdFor,
  TABLE_NAME,
  unique,
} from './common.mjs';

const T = TABLE_NAME;

/**
 * The command classes of the bare baselines, from a freshly loaded bundle of the SDK that part 1
 * hands each route (`useBareSdk`) before any baseline runs, so that the baseline runs a copy of
 * the SDK code exactly as new and as warm as the handler's own bundled copy.
 * @type {Pick<typeof import('@aws-sdk/lib-dynamodb'), 'BatchGetCommand' | 'GetCommand' | 'QueryCommand' | 'TransactWriteCommand'>
 *   & Pick<typeof import('@aws-sdk/client-sqs'), 'SendMessageBatchCommand'> & { sqs: (endpoint: string) => import('@aws-sdk/client-sqs').SQSClient }}
 */
let sdk;
const arn = (/** @type {string} */ name) => `arn:aws:iam::123456789012:user/${name}`;

/**
 * @typedef {{ handler: (event: unknown, context: unknown) => Promise<any> }} Bundle
 * @typedef {{ event: unknown, expect: number, bare: () => Promise<unknown>, cleanup?: () => Promise<unknown>,
 *   sameCalls?: () => Promise<import('./common.mjs').SameCallsPlan> }} Sample
 *   `cleanup` (untimed) removes what both sides created, so that the table every later figure
 *   reads from holds the seeded fixtures only. `sameCalls`, for a route whose first request
 *   makes more than one call, seeds what they need and gives part 2's bare handler that makes
 *   them (bareSameCallsSource in common.mjs).
 * @typedef {{ allowed: Record<string, number>, text: string }} StoreBudget
 *   What the route may make per request (part 3): DynamoDB requests by kind (anything else
 *   fails), never a Scan.
 * @typedef {{ name: string, fn: string, storeBudget: StoreBudget, sampleShare?: number,
 *   sample: (fx: Fixtures) => Promise<Sample> }} Route
 *   `sampleShare` (default 1): the fraction of part 1's samples per round the route takes.
 * @typedef {import('@aws-sdk/lib-dynamodb').DynamoDBDocumentClient} Doc
 */

/** Seed data and helpers every route draws on. */
export class Fixtures {
  /**
   * @param {Record<string, Bundle>} handlers bundles used to seed data through the real API
   * @param {string} consumerUrl a local endpoint that answers 204
   * @param {string} queueUrl the local queue the handlers enqueue to
   */
  constructor(handlers, consumerUrl, queueUrl) {
    /** @type {Doc | undefined} the baselines' client, set with the SDK by `useBareSdk` */
    this.bareDb = undefined;
    /** @type {import('@aws-sdk/client-sqs').SQSClient | undefined} the baselines' SQS client, the same */
    this.bareSqs = undefined;
    /** @typedef {{ id: string, node: string, address: string }} SeededPublisher */
    /** @type {SeededPublisher | undefined} */
    this.reading = undefined;
    /** @type {SeededPublisher | undefined} */
    this.stateless = undefined;
    /** @type {SeededPublisher[] | undefined} publishers the publish route's sides post to */
    this.publishing = undefined;
    /** @type {{ id: string, principal: string, address: string, endpoint: string }[]} */
    this.readingSubs = [];
    this.handlers = handlers;
    this.consumerUrl = consumerUrl;
    this.queueUrl = queueUrl;
    this.agent = new http.Agent({ keepAlive: true });
  }

  /**
   * Makes the bare baselines use `bare`: a fresh copy of the SDK bundled as the handlers are.
   * @param {{ client: Doc, sdk: typeof sdk }} bare
   */
  useBareSdk(bare) {
    this.bareDb = bare.client;
    sdk = bare.sdk;
    this.bareSqs = sdk.sqs(this.queueUrl);
  }

  /** The baselines' client; part 1 sets it (`useBareSdk`) before any baseline runs. */
  get db() {
    if (!this.bareDb) throw new Error('useBareSdk was not called before a baseline ran');
    return this.bareDb;
  }

  /** Part 2 swaps in a recorder to learn which calls a baseline makes. */
  set db(client) {
    this.bareDb = client;
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

  /** Deletes a publisher a sample created, if that side of the sample ran. @param {string} id */
  removePublisher(id) {
    const options = { method: 'DELETE', path: `/publishers/${id}`, pathParameters: { publisherId: id } };
    return this.remove('deletePublisher', options);
  }

  /** Deletes a subscription a sample created, if that side ran. @param {string} principal @param {string} id */
  removeSubscription(principal, id) {
    const options = {
      method: 'DELETE',
      path: `/subscriptions/${id}`,
      pathParameters: { subscriptionId: id },
      principal,
    };
    return this.remove('deleteSubscription', options);
  }

  /** @param {string} fn @param {Parameters<typeof httpApiEvent>[0]} options */
  async remove(fn, options) {
    const response = await this.handlers[fn]?.handler(httpApiEvent(options), lambdaContext());
    if (response?.statusCode !== 204 && response?.statusCode !== 404) {
      throw new Error(`cleanup ${fn}: ${response?.statusCode} ${response?.body}`);
    }
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

  /** One message to the local queue, as the handlers' queue adapter sends it: a SendMessageBatch through the SDK's SQS client. */
  async enqueue(/** @type {string} */ queue, /** @type {unknown} */ message) {
    if (!this.bareSqs) throw new Error('useBareSdk was not called before a baseline ran');
    await this.bareSqs.send(
      new sdk.SendMessageBatchCommand({
        QueueUrl: this.queueUrlOf(queue),
        Entries: [{ Id: '0', MessageBody: JSON.stringify(message) }],
      }),
    );
  }

  /** The URL of a local queue, as the functions are given it. @param {string} queue */
  queueUrlOf(queue) {
    return `${this.queueUrl}/${LOCAL_ACCOUNT}/${queue}`;
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

/** @param {{ id: string, address: string }} publisher @param {unknown} event @param {Date} acceptedAt */
const fanOutMessage = (publisher, event, acceptedAt) => ({
  kind: 'fan-out',
  publisherId: publisher.id,
  resourceAddress: publisher.address,
  event,
  acceptedAt: acceptedAt.toISOString(),
});

/**
 * A value of the sealed signing secret's form and size (`v1.<iv>.<ciphertext+tag>` of a
 * `whsec_` secret): the baseline writes the same item as the store, without the encryption.
 */
const sealedSecretStandIn = () =>
  `v1.${randomBytes(12).toString('base64')}.${randomBytes(50 + 16).toString('base64')}`;

/** The shards of an owner's count, read as delete-all reads them. @param {string} principal */
const ownerShardsQuery = (principal) => ({
  TableName: T,
  KeyConditionExpression: 'pk = :pk',
  ExpressionAttributeValues: { ':pk': keys.ownerPartition(principal) },
  ConsistentRead: true,
});

/** The clean-up job delete-all enqueues. @param {string} owner */
const removalMessage = (owner) => ({ kind: 'remove-retired', owner, fromGeneration: 0, toGeneration: 1 });

/** Lists read one record more than the page, to know whether another page follows. */
const LIST_READ = 501;

/** @param {Doc} db @param {Record<string, unknown>} key @param {boolean} [consistent] */
const get = (db, key, consistent = true) =>
  db.send(new sdk.GetCommand({ TableName: T, Key: key, ConsistentRead: consistent }));

/** A consistent batch read, as the store makes it. @param {Doc} db @param {Record<string, unknown>[]} keys */
const batchGet = async (db, keys) => {
  const result = await db.send(
    new sdk.BatchGetCommand({ RequestItems: { [T]: { Keys: keys, ConsistentRead: true } } }),
  );
  return result.Responses?.[T] ?? [];
};

/** @param {Doc} db @param {import('@aws-sdk/lib-dynamodb').QueryCommandInput} input */
const query = (db, input) => db.send(new sdk.QueryCommand(input));

/** Store budgets that several routes share. @type {StoreBudget} */
const ONE_READ = { allowed: { GetItem: 1 }, text: 'one read' };
/** @type {StoreBudget} */
const ONE_QUERY = { allowed: { Query: 1 }, text: 'a query (per page), no scan' };
/** @type {StoreBudget} */
const ONE_TRANSACTION = { allowed: { TransactWriteItems: 1 }, text: 'one transaction' };

/** @type {Route[]} */
export const ROUTES = [
  {
    name: 'GET /health',
    storeBudget: ONE_READ,
    fn: 'health',
    sample: async (fx) => ({
      event: httpApiEvent({ method: 'GET', path: '/health' }),
      expect: 200,
      bare: () => get(fx.db, keys.health, false),
    }),
  },
  {
    name: 'GET /subscriptions/{id}',
    storeBudget: { allowed: { BatchGetItem: 1 }, text: "one read (with its owner's generation)" },
    fn: 'getSubscription',
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
        bare: () => batchGet(fx.db, [keys.subscription(s.id), keys.owner(s.principal)]),
      };
    },
  },
  {
    name: 'GET /subscriptions',
    storeBudget: { allowed: { GetItem: 1, Query: 1 }, text: "the owner's generation + a query per page" },
    fn: 'listSubscriptions',
    sample: async (fx) => ({
      event: httpApiEvent({ method: 'GET', path: '/subscriptions', principal: arn('reader') }),
      expect: 200,
      bare: async () => {
        await get(fx.db, keys.owner(arn('reader')));
        await query(fx.db, {
          TableName: T,
          IndexName: 'byList',
          KeyConditionExpression: 'listPk = :pk',
          ExpressionAttributeValues: { ':pk': keys.subscriptionsOf(arn('reader'), 0) },
          Limit: LIST_READ,
        });
      },
    }),
  },
  ...['deliveries', 'dead-letters'].map((list) => ({
    name: `GET /subscriptions/{id}/${list}`,
    storeBudget: {
      allowed: { BatchGetItem: 1, Query: 1 },
      text: "one read (with its owner's generation) + a query per page",
    },
    fn: list === 'deliveries' ? 'listDeliveries' : 'listDeadLetters',
    /** @param {Fixtures} fx */
    sample: async (fx) => {
      const s = fx.readingSubs?.[Math.floor(Math.random() * 10)];
      if (!s) throw new Error('not seeded');
      return {
        event: httpApiEvent({
          method: 'GET',
          path: `/subscriptions/${s.id}/${list}`,
          pathParameters: { subscriptionId: s.id },
          principal: s.principal,
        }),
        expect: 200,
        bare: async () => {
          const key = keys.subscription(s.id);
          const read = await batchGet(fx.db, [key, keys.owner(s.principal)]);
          // Dead letters are listed under the incarnation the read found (its createdAt).
          const record = read.find((item) => item.sk === key.sk);
          const prefix =
            list === 'deliveries'
              ? keys.deliveryCursorPrefix
              : keys.deadLetterPrefix(String(record?.createdAt));
          await query(fx.db, {
            TableName: T,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':pk': key.pk, ':prefix': prefix },
            Limit: LIST_READ,
          });
        },
      };
    },
  })),
  {
    name: 'GET /{address}/CurrentState',
    storeBudget: ONE_READ,
    fn: 'getCurrentState',
    sample: async (fx) => {
      const address = fx.reading?.address ?? '';
      return {
        event: httpApiEvent({ method: 'GET', path: `${address}/CurrentState` }),
        expect: 200,
        bare: () => get(fx.db, keys.publisherState(publisherIdFor(address))),
      };
    },
  },
  {
    name: 'GET /publishers/{id}',
    storeBudget: ONE_READ,
    fn: 'getPublisher',
    sample: async (fx) => {
      const id = fx.reading?.id ?? '';
      return {
        event: httpApiEvent({
          method: 'GET',
          path: `/publishers/${id}`,
          pathParameters: { publisherId: id },
        }),
        expect: 200,
        bare: () => get(fx.db, keys.publisher(id)),
      };
    },
  },
  {
    name: 'GET /publishers',
    storeBudget: ONE_QUERY,
    fn: 'listPublishers',
    sample: async (fx) => ({
      event: httpApiEvent({ method: 'GET', path: '/publishers' }),
      expect: 200,
      bare: () =>
        query(fx.db, {
          TableName: T,
          IndexName: 'byList',
          KeyConditionExpression: 'listPk = :pk',
          ExpressionAttributeValues: { ':pk': keys.publishers },
          Limit: LIST_READ,
        }),
    }),
  },
  subscribeRoute('exact'),
  subscribeRoute('inclusive'),
  {
    name: 'DELETE /subscriptions/{id}',
    storeBudget: {
      allowed: { GetItem: 1, TransactWriteItems: 1, Query: 1 },
      text: "the owner's generation + one transaction + its dead letters (a query of keys, nearly always empty)",
    },
    fn: 'deleteSubscription',
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
          await get(fx.db, keys.owner(principal));
          await fx.db.send(
            new sdk.TransactWriteCommand({
              ...deleteSubscriptionTransaction(bare.id, principal),
            }),
          );
          await query(fx.db, {
            TableName: T,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: {
              ':pk': keys.subscription(bare.id).pk,
              ':prefix': keys.deadLetterPrefix(),
            },
            ProjectionExpression: 'pk, sk',
          });
        },
      };
    },
  },
  {
    name: 'DELETE /subscriptions',
    // Each sample seeds six subscriptions: part 1 takes a third as many per round.
    sampleShare: 1 / 3,
    storeBudget: {
      allowed: { Query: 1, TransactWriteItems: 1 },
      text: "the owner's count shards + one transaction, whatever it owns (+ one clean-up message)",
    },
    fn: 'deleteAllSubscriptions',
    sample: async (fx) => {
      const address = fx.stateless?.node ?? '';
      const [mine, bare] = [arn(unique('all')), arn(unique('all'))];
      for (let i = 0; i < 3; i++) {
        await fx.subscription(mine, address);
        await fx.subscription(bare, address);
      }
      return {
        event: httpApiEvent({ method: 'DELETE', path: '/subscriptions', principal: mine }),
        expect: 204,
        sameCalls: async () => {
          const owner = arn(unique('all'));
          for (let i = 0; i < 3; i++) await fx.subscription(owner, address);
          const shards = (await query(fx.db, ownerShardsQuery(owner))).Items ?? [];
          return {
            label: 'Query + TransactWriteItems + SendMessageBatch',
            steps: [
              { command: 'Query', input: ownerShardsQuery(owner) },
              { command: 'TransactWrite', input: retireAllTransaction(owner, shards) },
              { sqs: fx.queueUrlOf('cleanup'), body: JSON.stringify(removalMessage(owner)) },
            ],
          };
        },
        bare: async () => {
          const shards = (await query(fx.db, ownerShardsQuery(bare))).Items ?? [];
          await fx.db.send(new sdk.TransactWriteCommand(retireAllTransaction(bare, shards)));
          await fx.enqueue('cleanup', removalMessage(bare));
        },
      };
    },
  },
  {
    name: 'POST /publishers',
    storeBudget: ONE_TRANSACTION,
    fn: 'createPublisher',
    sample: async (fx) => {
      const mine = `/${unique('bench')}/site-1/node-1/sync/ptp-status/lock-state`;
      const address = `/${unique('bench')}/site-1/node-1/sync/ptp-status/lock-state`;
      return {
        event: httpApiEvent({ method: 'POST', path: '/publishers', body: { ResourceAddress: mine } }),
        expect: 201,
        cleanup: async () => {
          await fx.removePublisher(publisherIdFor(mine));
          await fx.removePublisher(publisherIdFor(address));
        },
        bare: () =>
          fx.db.send(
            new sdk.TransactWriteCommand(createPublisherTransaction(publisherIdFor(address), address)),
          ),
      };
    },
  },
  {
    name: 'DELETE /publishers/{id}',
    storeBudget: ONE_TRANSACTION,
    fn: 'deletePublisher',
    sample: async (fx) => {
      const [mine, bare] = [await fx.publisher(false), await fx.publisher(false)];
      return {
        event: httpApiEvent({
          method: 'DELETE',
          path: `/publishers/${mine.id}`,
          pathParameters: { publisherId: mine.id },
        }),
        expect: 204,
        bare: () => fx.db.send(new sdk.TransactWriteCommand(deletePublisherTransaction(bare.id))),
      };
    },
  },
  {
    name: 'POST /publishers/{id}/events',
    storeBudget: {
      allowed: { TransactWriteItems: 1, Query: 6 },
      text: 'one transaction + one query per ancestor (6)',
    },
    fn: 'publishEvent',
    sample: async (fx) => {
      // Each side publishes to its own publisher, so that no side's event is older than another's.
      fx.publishing ??= [await fx.publisher(false), await fx.publisher(false), await fx.publisher(false)];
      const [mine, bare, same] = fx.publishing;
      if (!mine || !bare || !same) throw new Error('not seeded');
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
        // A cold instance does not know the publisher's address yet: it reads it alongside the
        // transaction, then enqueues.
        sameCalls: async () => {
          const event = lockStateEvent(same.node, nextTime());
          const acceptedAt = new Date();
          return {
            label: '(GetItem ∥ TransactWriteItems) + SendMessageBatch',
            steps: [
              {
                all: [
                  {
                    command: 'Get',
                    input: { TableName: T, Key: keys.publisher(same.id), ConsistentRead: true },
                  },
                  { command: 'TransactWrite', input: acceptEventTransaction(same.id, event, acceptedAt) },
                ],
              },
              { sqs: fx.queueUrlOf('fan-out'), body: JSON.stringify(fanOutMessage(same, event, acceptedAt)) },
            ],
          };
        },
        bare: async () => {
          // A warm publish: the handler knows the publisher's address from an earlier request.
          const acceptedAt = new Date();
          await fx.db.send(
            new sdk.TransactWriteCommand(acceptEventTransaction(bare.id, bareEvent, acceptedAt)),
          );
          // The ancestor queries happen later, in the fan-out function; the request enqueues once.
          await fx.enqueue('fan-out', fanOutMessage(bare, bareEvent, acceptedAt));
        },
      };
    },
  },
];

/**
 * POST /subscriptions to the address of the seeded publisher (`exact`: it covers that publisher
 * only) or to its node (`inclusive`: it covers every publisher under it).
 * @param {'exact' | 'inclusive'} kind
 * @returns {Route}
 */
function subscribeRoute(kind) {
  return {
    name: `POST /subscriptions (${kind})`,
    // The OpenAPI document puts the 409 and the 404 before the sanity-check POST, and the POST
    // before the write (nothing is stored when it fails), so a subscribe reads before it writes.
    storeBudget:
      kind === 'exact'
        ? {
            allowed: { BatchGetItem: 1, TransactWriteItems: 1, GetItem: 1 },
            text: 'one transaction + sanity POST, after one read for 409/404, then the state read again',
          }
        : {
            allowed: { BatchGetItem: 3, Query: 2, TransactWriteItems: 1, GetItem: 1 },
            text: 'the same + a query and a read of the covered states, each time',
          },
    fn: 'createSubscription',
    sample: async (fx) => {
      const principal = arn('creator');
      const address = (kind === 'exact' ? fx.reading?.address : fx.reading?.node) ?? '';
      const mine = { ResourceAddress: address, EndpointUri: `${fx.consumerUrl}/${randomUUID()}` };
      const bare = { ResourceAddress: address, EndpointUri: `${fx.consumerUrl}/${randomUUID()}` };
      const sameCalls = { ResourceAddress: address, EndpointUri: `${fx.consumerUrl}/${randomUUID()}` };
      const sameCallsId = subscriptionIdFor(principal, address, sameCalls.EndpointUri);
      const createdAt = new Date().toISOString();
      return {
        event: httpApiEvent({ method: 'POST', path: '/subscriptions', body: mine, principal }),
        expect: 201,
        sameCalls:
          kind === 'exact'
            ? async () => {
                const event = lockStateEvent(fx.reading?.node ?? '', nextTime());
                return {
                  label: 'BatchGetItem + sanity POST + TransactWriteItems + GetItem',
                  steps: [
                    {
                      command: 'BatchGet',
                      input: {
                        RequestItems: {
                          [T]: {
                            Keys: [
                              keys.subscription(sameCallsId),
                              keys.publisherState(publisherIdFor(address)),
                              keys.owner(principal),
                            ],
                            ConsistentRead: true,
                          },
                        },
                      },
                    },
                    { post: sameCalls.EndpointUri, body: JSON.stringify(event) },
                    {
                      command: 'TransactWrite',
                      input: subscribeTransaction({
                        id: sameCallsId,
                        owner: principal,
                        address,
                        endpoint: sameCalls.EndpointUri,
                        createdAt,
                        sealedSecret: sealedSecretStandIn(),
                        initial: { resourceAddress: address, event },
                      }),
                    },
                    {
                      command: 'Get',
                      input: {
                        TableName: T,
                        Key: keys.publisherState(publisherIdFor(address)),
                        ConsistentRead: true,
                      },
                    },
                  ],
                };
              }
            : undefined,
        cleanup: async () => {
          for (const body of kind === 'exact' ? [mine, bare, sameCalls] : [mine, bare]) {
            const id = subscriptionIdFor(principal, body.ResourceAddress, body.EndpointUri);
            await fx.removeSubscription(principal, id);
          }
        },
        bare: async () => {
          const id = subscriptionIdFor(principal, bare.ResourceAddress, bare.EndpointUri);
          const key = keys.subscription(id);
          const exactState = keys.publisherState(publisherIdFor(address));
          const statesUnder = async () => {
            const tree = await query(fx.db, {
              TableName: T,
              IndexName: 'publisherTree',
              KeyConditionExpression: 'treePk = :pk AND begins_with(treeSk, :prefix)',
              ExpressionAttributeValues: { ':pk': keys.treePartition(address), ':prefix': `${address}/` },
            });
            return batchGet(
              fx.db,
              (tree.Items ?? []).map((item) => ({ pk: item.pk, sk: item.sk })),
            );
          };
          const first = await batchGet(fx.db, [key, exactState, keys.owner(principal)]);
          let state = first.find((item) => item.sk === exactState.sk);
          if (!state) [state] = await statesUnder();
          const event = JSON.parse(String(state?.event));
          await fx.sanityPost(bare.EndpointUri, event);
          await fx.db.send(
            new sdk.TransactWriteCommand(
              subscribeTransaction({
                id,
                owner: principal,
                address,
                endpoint: bare.EndpointUri,
                createdAt: new Date().toISOString(),
                sealedSecret: sealedSecretStandIn(),
                initial: { resourceAddress: String(state?.resourceAddress), event },
              }),
            ),
          );
          // The states read again once the subscription exists.
          const again = await fx.db.send(
            new sdk.GetCommand({ TableName: T, Key: exactState, ConsistentRead: true }),
          );
          if (!again.Item) await statesUnder();
        },
      };
    },
  };
}

/**
 * Runs the route's handler on the sample's event in-process; throws unless it answers as the
 * sample expects.
 * @param {Route} route @param {Bundle} bundle @param {Sample} sample
 */
export async function runSample(route, bundle, sample) {
  const response = await bundle.handler(sample.event, lambdaContext());
  if (response.statusCode !== sample.expect) {
    throw new Error(`${route.name}: expected ${sample.expect}, got ${response.statusCode} ${response.body}`);
  }
  return response;
}

/**
 * Runs each route's sample `times` times untimed: the handler, then the bare calls (which consume
 * what the sample seeded for the bare side, a delete's item for one), then cleanup. It warms the
 * handlers' and the bare SDK's code paths and DynamoDB Local's JIT for both sides alike.
 * @param {Route[]} routes @param {Fixtures} fixtures @param {Record<string, Bundle>} handlers @param {number} times
 */
export async function warmUp(routes, fixtures, handlers, times) {
  for (const route of routes) {
    const bundle = handlers[route.fn];
    if (!bundle) throw new Error(`no bundle for ${route.fn}`);
    for (let i = 0; i < times; i++) {
      const sample = await route.sample(fixtures);
      await runSample(route, bundle, sample);
      await sample.bare();
      await sample.cleanup?.();
    }
  }
}
