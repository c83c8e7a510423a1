import { type AttributeValue, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { NotificationEvent } from '../domain/event';
import type {
  AcceptOutcome,
  CreateOutcome,
  DeliveryAttempt,
  EventToAccept,
  InitialNotification,
  LeaseOutcome,
  NotificationStore,
  Publisher,
  PublisherState,
  SubscribeCheck,
  Subscription,
} from '../domain/model';
import { DeliveryCursors } from './delivery-cursors';
import { type CounterKind, INDEX, keys } from './keys';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type Item = Record<string, unknown>;

/** Deletes of delete-all go in chunks; each subscription is two items, plus one counter update. */
const DELETE_ALL_CHUNK = 25;
const TRANSACTION_ATTEMPTS = 12;
/** Outlives the longest retry window allowed (14 days), so no delivery of the subscription outlives it. */
const INITIAL_CURSOR_TTL_SECONDS = 15 * 24 * 3600;

export class DynamoStore implements NotificationStore {
  private readonly cursors: DeliveryCursors;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.cursors = new DeliveryCursors(client, tableName);
  }

  /**
   * One query finds the publishers at or under the address; one consistent batch read then gets
   * their states together with the uniqueness item of the requested subscription.
   */
  async subscribeCheck(owner: string, address: string, endpointUri: string): Promise<SubscribeCheck> {
    const uniqueness = keys.subscriptionUniqueness(owner, address, endpointUri);
    const stateKeys: Item[] = [];
    for await (const page of this.pages(this.treeQuery(address))) {
      stateKeys.push(...page.map((item) => ({ pk: item.pk, sk: item.sk })));
    }
    const items =
      stateKeys.length === 0 ? [await this.get(uniqueness)] : await this.batchGet([uniqueness, ...stateKeys]);
    const existing = items.find((item) => item?.pk === uniqueness.pk);
    return {
      existingId: typeof existing?.subscriptionId === 'string' ? existing.subscriptionId : undefined,
      states: items
        .filter((item): item is Item => item !== undefined && item.pk !== uniqueness.pk)
        .map(toState),
    };
  }

  async createSubscription(s: Subscription, initial?: InitialNotification): Promise<CreateOutcome> {
    const uniqueness = keys.subscriptionUniqueness(s.owner, s.resourceAddress, s.endpointUri);
    const failure = await this.transact([
      {
        Put: {
          TableName: this.tableName,
          Item: { ...uniqueness, subscriptionId: s.id },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      {
        Put: {
          TableName: this.tableName,
          Item: {
            ...keys.subscription(s.id),
            ...keys.subscriptionByAddress(s.resourceAddress, s.owner, s.id),
            listPk: keys.subscriptionsOf(s.owner),
            listSk: `${s.createdAt}#${s.id}`,
            ...subscriptionAttributes(s),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      this.countBy('subscriptions', 1),
      ...(initial ? [this.initialCursor(s.id, initial)] : []),
    ]);
    if (!failure) return { created: true };
    const existingId = failure[0]?.Item?.subscriptionId;
    if (typeof existingId === 'string') return { created: false, existingId };
    throw new Error(`subscription create was cancelled unexpectedly: ${JSON.stringify(failure)}`);
  }

  async getSubscription(id: string): Promise<Subscription | undefined> {
    const item = await this.get(keys.subscription(id));
    return item && toSubscription(item);
  }

  async listSubscriptions(owner: string, address?: string): Promise<Subscription[]> {
    const query: QueryCommandInput =
      address === undefined
        ? {
            TableName: this.tableName,
            IndexName: INDEX.byList,
            KeyConditionExpression: 'listPk = :pk',
            ExpressionAttributeValues: { ':pk': keys.subscriptionsOf(owner) },
          }
        : {
            TableName: this.tableName,
            IndexName: INDEX.byAddress,
            KeyConditionExpression: 'addrPk = :pk AND begins_with(addrSk, :owner)',
            ExpressionAttributeValues: {
              ':pk': keys.subscriptionsAt(address),
              ':owner': keys.ownerPrefix(owner),
            },
          };
    const subscriptions: Subscription[] = [];
    for await (const page of this.pages(query)) subscriptions.push(...page.map(toSubscription));
    return subscriptions;
  }

  async deleteSubscription(id: string, owner: string): Promise<Subscription | undefined> {
    const subscription = await this.getSubscription(id);
    if (subscription?.owner !== owner) return undefined;
    const failure = await this.transact([
      ...this.subscriptionDeletes(subscription),
      this.countBy('subscriptions', -1),
    ]);
    return failure ? undefined : subscription;
  }

  async deleteAllSubscriptions(owner: string): Promise<number> {
    let deleted = 0;
    const query: QueryCommandInput = {
      TableName: this.tableName,
      IndexName: INDEX.byList,
      KeyConditionExpression: 'listPk = :pk',
      ExpressionAttributeValues: { ':pk': keys.subscriptionsOf(owner) },
      Limit: DELETE_ALL_CHUNK,
    };
    for await (const page of this.pages(query)) {
      let pending = page.map(toSubscription);
      // A subscription deleted meanwhile fails its condition; drop it and delete the rest.
      while (pending.length > 0) {
        const failure = await this.transact([
          ...pending.flatMap((s) => this.subscriptionDeletes(s)),
          this.countBy('subscriptions', -pending.length),
        ]);
        if (!failure) {
          deleted += pending.length;
          break;
        }
        pending = pending.filter((_, i) => failure[i * 2]?.Code !== 'ConditionalCheckFailed');
      }
    }
    return deleted;
  }

  async *subscriptionsCovering(address: string): AsyncIterable<Subscription[]> {
    const segments = address.slice(1).split('/');
    for (let depth = 1; depth <= segments.length; depth++) {
      const ancestor = `/${segments.slice(0, depth).join('/')}`;
      for await (const page of this.pages({
        TableName: this.tableName,
        IndexName: INDEX.byAddress,
        KeyConditionExpression: 'addrPk = :pk',
        ExpressionAttributeValues: { ':pk': keys.subscriptionsAt(ancestor) },
      })) {
        if (page.length > 0) yield page.map(toSubscription);
      }
    }
  }

  async createPublisher(p: Publisher): Promise<CreateOutcome> {
    const failure = await this.transact([
      {
        Put: {
          TableName: this.tableName,
          Item: {
            ...keys.publisherAddress(p.resourceAddress),
            ...keys.publisherTree(p.resourceAddress),
            publisherId: p.id,
            resourceAddress: p.resourceAddress,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      {
        Put: {
          TableName: this.tableName,
          Item: {
            ...keys.publisher(p.id),
            listPk: keys.publishers,
            listSk: `${p.createdAt}#${p.id}`,
            id: p.id,
            resourceAddress: p.resourceAddress,
            endpointUri: p.endpointUri,
            createdAt: p.createdAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      this.countBy('publishers', 1),
    ]);
    if (!failure) return { created: true };
    const existingId = failure[0]?.Item?.publisherId;
    if (typeof existingId === 'string') return { created: false, existingId };
    throw new Error(`publisher create was cancelled unexpectedly: ${JSON.stringify(failure)}`);
  }

  async getPublisher(id: string): Promise<Publisher | undefined> {
    const item = await this.get(keys.publisher(id));
    return item && toPublisher(item);
  }

  async listPublishers(): Promise<Publisher[]> {
    const publishers: Publisher[] = [];
    for await (const page of this.pages({
      TableName: this.tableName,
      IndexName: INDEX.byList,
      KeyConditionExpression: 'listPk = :pk',
      ExpressionAttributeValues: { ':pk': keys.publishers },
    })) {
      publishers.push(...page.map(toPublisher));
    }
    return publishers;
  }

  async deletePublisher(id: string): Promise<Publisher | undefined> {
    const publisher = await this.getPublisher(id);
    if (!publisher) return undefined;
    const failure = await this.transact([
      {
        Delete: {
          TableName: this.tableName,
          Key: keys.publisher(id),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      {
        Delete: {
          TableName: this.tableName,
          Key: keys.publisherAddress(publisher.resourceAddress),
          ConditionExpression: 'publisherId = :id',
          ExpressionAttributeValues: { ':id': id },
        },
      },
      this.countBy('publishers', -1),
    ]);
    return failure ? undefined : publisher;
  }

  async getState(address: string): Promise<PublisherState | undefined> {
    const item = await this.get(keys.publisherAddress(address));
    return item && toState(item);
  }

  async acceptEvent(e: EventToAccept): Promise<AcceptOutcome> {
    const failure = await this.transact([
      {
        Put: {
          TableName: this.tableName,
          Item: {
            ...keys.acceptedEvent(e.publisherId, e.event.source, e.event.id),
            expiresAt: e.dedupExpiresAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Update: {
          TableName: this.tableName,
          Key: keys.publisherAddress(e.resourceAddress),
          UpdateExpression: 'SET #event = :event, timeKey = :timeKey, acceptedAt = :acceptedAt',
          ConditionExpression:
            'publisherId = :publisherId AND (attribute_not_exists(timeKey) OR timeKey <= :timeKey)',
          ExpressionAttributeNames: { '#event': 'event' },
          ExpressionAttributeValues: {
            ':event': JSON.stringify(e.event),
            ':timeKey': e.timeKey,
            ':acceptedAt': e.acceptedAt,
            ':publisherId': e.publisherId,
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ]);
    if (!failure) return 'accepted';
    // A publisher deleted meanwhile wins over a repeat: callers may know its address from a cache.
    const stateCheck = failure[1];
    if (stateCheck?.Code === 'ConditionalCheckFailed' && stateCheck.Item?.publisherId !== e.publisherId) {
      return 'unknown-publisher';
    }
    if (failure[0]?.Code === 'ConditionalCheckFailed') return 'duplicate';
    return stateCheck?.Item?.publisherId === e.publisherId ? 'stale' : 'unknown-publisher';
  }

  async forgetAcceptedEvent(publisherId: string, source: string, id: string): Promise<void> {
    await this.client.send(
      new DeleteCommand({ TableName: this.tableName, Key: keys.acceptedEvent(publisherId, source, id) }),
    );
  }

  acquireDeliveryLease(attempt: DeliveryAttempt): Promise<LeaseOutcome> {
    return this.cursors.acquire(attempt);
  }

  completeDelivery(attempt: DeliveryAttempt): Promise<void> {
    return this.cursors.complete(attempt);
  }

  releaseDeliveryLease(attempt: DeliveryAttempt): Promise<void> {
    return this.cursors.release(attempt);
  }

  async counts(): Promise<{ subscriptions: number; publishers: number }> {
    const totals = { subscriptions: 0, publishers: 0 };
    for await (const page of this.pages({
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.counters },
      ConsistentRead: true,
    })) {
      for (const item of page) {
        const kind = String(item.sk).split('#')[0] as CounterKind;
        if (kind in totals) totals[kind] += Number(item.n ?? 0);
      }
    }
    return totals;
  }

  async ping(): Promise<void> {
    await this.client.send(new GetCommand({ TableName: this.tableName, Key: keys.health }));
  }

  private subscriptionDeletes(s: Subscription): TransactItem[] {
    return [
      {
        Delete: {
          TableName: this.tableName,
          Key: keys.subscription(s.id),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      {
        Delete: {
          TableName: this.tableName,
          Key: keys.subscriptionUniqueness(s.owner, s.resourceAddress, s.endpointUri),
        },
      },
    ];
  }

  /** The delivery cursor of a new subscription, as if it had been delivered its initial event. */
  private initialCursor(subscriptionId: string, initial: InitialNotification): TransactItem {
    return {
      Put: {
        TableName: this.tableName,
        Item: {
          ...keys.deliveryCursor(subscriptionId, initial.resourceAddress),
          deliveredTimeKey: initial.timeKey,
          deliveredEvent: `${initial.event.source}#${initial.event.id}`,
          expiresAt: Math.ceil(Date.now() / 1000) + INITIAL_CURSOR_TTL_SECONDS,
        },
      },
    };
  }

  private countBy(kind: CounterKind, delta: number): TransactItem {
    return {
      Update: {
        TableName: this.tableName,
        Key: keys.counterShard(kind),
        UpdateExpression: 'ADD n :delta',
        ExpressionAttributeValues: { ':delta': delta },
      },
    };
  }

  private treeQuery(address: string): QueryCommandInput {
    return {
      TableName: this.tableName,
      IndexName: INDEX.publisherTree,
      KeyConditionExpression: 'treePk = :pk AND begins_with(treeSk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.treePartition(address), ':prefix': `${address}/` },
    };
  }

  /** Consistent reads of any number of keys, in batches of 100, retrying what DynamoDB leaves unprocessed. */
  private async batchGet(keysToRead: Item[]): Promise<Item[]> {
    const items: Item[] = [];
    for (let start = 0; start < keysToRead.length; start += 100) {
      let batch = keysToRead.slice(start, start + 100);
      while (batch.length > 0) {
        const result = await this.client.send(
          new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: batch, ConsistentRead: true } } }),
        );
        items.push(...(result.Responses?.[this.tableName] ?? []));
        batch = (result.UnprocessedKeys?.[this.tableName]?.Keys as Item[] | undefined) ?? [];
      }
    }
    return items;
  }

  private async get(key: Item): Promise<Item | undefined> {
    // DynamoDB refuses a sort key over 1,024 bytes or a partition key over 2,048; no item has one,
    // so such a key (an over-long id in a path) finds nothing rather than failing the request.
    if (Buffer.byteLength(String(key.pk)) > 2048 || Buffer.byteLength(String(key.sk)) > 1024)
      return undefined;
    const result = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    return result.Item;
  }

  private async *pages(query: QueryCommandInput): AsyncIterable<Item[]> {
    let startKey: Item | undefined;
    do {
      const result = await this.client.send(new QueryCommand({ ...query, ExclusiveStartKey: startKey }));
      yield result.Items ?? [];
      startKey = result.LastEvaluatedKey;
    } while (startKey);
  }

  /**
   * Runs a transaction, retrying conflicts with concurrent transactions. Returns undefined on
   * success, or the cancellation reasons (one per item) when a condition failed.
   */
  private async transact(items: TransactItem[]): Promise<CancellationReason[] | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.send(new TransactWriteCommand({ TransactItems: items }));
        return undefined;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        // The document client does not unmarshal the items in cancellation reasons.
        const reasons: CancellationReason[] = (error.CancellationReasons ?? []).map((reason) => ({
          Code: reason.Code,
          Item: reason.Item && unmarshall(reason.Item as Record<string, AttributeValue>),
        }));
        const conflicted = reasons.some((r) => r.Code === 'TransactionConflict');
        const conditionFailed = reasons.some((r) => r.Code === 'ConditionalCheckFailed');
        if (conditionFailed) return reasons;
        if (!conflicted || attempt >= TRANSACTION_ATTEMPTS) throw error;
        await sleep(Math.random() * 10 * 2 ** Math.min(attempt, 6));
      }
    }
  }
}

interface CancellationReason {
  Code?: string;
  Item?: Item;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function subscriptionAttributes(s: Subscription): Item {
  return {
    id: s.id,
    resourceAddress: s.resourceAddress,
    endpointUri: s.endpointUri,
    owner: s.owner,
    createdAt: s.createdAt,
  };
}

function toSubscription(item: Item): Subscription {
  return {
    id: String(item.id),
    resourceAddress: String(item.resourceAddress),
    endpointUri: String(item.endpointUri),
    owner: String(item.owner),
    createdAt: String(item.createdAt),
  };
}

function toPublisher(item: Item): Publisher {
  return {
    id: String(item.id),
    resourceAddress: String(item.resourceAddress),
    endpointUri: typeof item.endpointUri === 'string' ? item.endpointUri : undefined,
    createdAt: String(item.createdAt),
  };
}

function toState(item: Item): PublisherState {
  return {
    publisherId: String(item.publisherId),
    resourceAddress: String(item.resourceAddress),
    event: typeof item.event === 'string' ? (JSON.parse(item.event) as NotificationEvent) : undefined,
    timeKey: typeof item.timeKey === 'string' ? item.timeKey : undefined,
    acceptedAt: typeof item.acceptedAt === 'string' ? item.acceptedAt : undefined,
  };
}
