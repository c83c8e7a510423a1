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
  DeliveryAttempt,
  EventToAccept,
  InitialNotification,
  LeaseOutcome,
  NotificationStore,
  Publisher,
  PublisherState,
  SubscribeCheck,
  SubscribeCheckKeys,
  Subscription,
} from '../domain/model';
import { DeliveryCursors } from './delivery-cursors';
import { type CounterKind, INDEX, keys } from './keys';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type Item = Record<string, unknown>;

/** Deletes of delete-all go in chunks: one item per subscription, plus one counter update. */
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
   * One consistent batch read gets the subscription, if it exists already, and the state of a
   * publisher at exactly the address, which is all a subscription to a publisher's address covers.
   * Only for an address above publishers does a query of the publisher tree find them, and a
   * second batch read get their states.
   */
  async subscribeCheck(check: SubscribeCheckKeys): Promise<SubscribeCheck> {
    const subscription = keys.subscription(check.subscriptionId);
    const [found, exact] = await this.batchGetBoth(subscription, keys.publisherState(check.publisherId));
    if (found || exact) return { exists: found !== undefined, states: exact ? [toState(exact)] : [] };
    const stateKeys: Item[] = [];
    for await (const page of this.pages(this.treeQuery(check.resourceAddress))) {
      stateKeys.push(...page.map((item) => ({ pk: item.pk, sk: item.sk })));
    }
    const states = stateKeys.length === 0 ? [] : await this.batchGet(stateKeys);
    return { exists: false, states: states.map(toState) };
  }

  /** The condition on the subscription's id is its uniqueness: the id follows from what is unique. */
  async createSubscription(s: Subscription, initial?: InitialNotification): Promise<boolean> {
    const failure = await this.transact([
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
    if (!failure) return true;
    if (failure[0]?.Code === 'ConditionalCheckFailed') return false;
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

  async deleteSubscription(id: string, owner: string): Promise<boolean> {
    const failure = await this.transact([
      this.subscriptionDelete(id, owner),
      this.countBy('subscriptions', -1),
    ]);
    return !failure;
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
          ...pending.map((s) => this.subscriptionDelete(s.id, owner)),
          this.countBy('subscriptions', -pending.length),
        ]);
        if (!failure) {
          deleted += pending.length;
          break;
        }
        pending = pending.filter((_, i) => failure[i]?.Code !== 'ConditionalCheckFailed');
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

  /** The condition on the publisher's id is its address's uniqueness: the id follows from the address. */
  async createPublisher(p: Publisher): Promise<boolean> {
    const failure = await this.transact([
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
      {
        Put: {
          TableName: this.tableName,
          Item: {
            ...keys.publisherState(p.id),
            ...keys.publisherTree(p.resourceAddress),
            publisherId: p.id,
            resourceAddress: p.resourceAddress,
          },
        },
      },
      this.countBy('publishers', 1),
    ]);
    if (!failure) return true;
    if (failure[0]?.Code === 'ConditionalCheckFailed') return false;
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

  async deletePublisher(id: string): Promise<boolean> {
    const failure = await this.transact([
      {
        Delete: {
          TableName: this.tableName,
          Key: keys.publisher(id),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      { Delete: { TableName: this.tableName, Key: keys.publisherState(id) } },
      this.countBy('publishers', -1),
    ]);
    return !failure;
  }

  async getState(publisherId: string): Promise<PublisherState | undefined> {
    const item = await this.get(keys.publisherState(publisherId));
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
          Key: keys.publisherState(e.publisherId),
          UpdateExpression: 'SET #event = :event, timeKey = :timeKey, acceptedAt = :acceptedAt',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(timeKey) OR timeKey <= :timeKey)',
          ExpressionAttributeNames: { '#event': 'event' },
          ExpressionAttributeValues: {
            ':event': JSON.stringify(e.event),
            ':timeKey': e.timeKey,
            ':acceptedAt': e.acceptedAt,
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ]);
    if (!failure) return 'accepted';
    // A publisher deleted meanwhile (no state item) wins over a repeat: callers may know its
    // address from a cache.
    const stateCheck = failure[1];
    const publisherExists = stateCheck?.Code !== 'ConditionalCheckFailed' || stateCheck.Item !== undefined;
    if (!publisherExists) return 'unknown-publisher';
    if (failure[0]?.Code === 'ConditionalCheckFailed') return 'duplicate';
    return 'stale';
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

  private subscriptionDelete(id: string, owner: string): TransactItem {
    return {
      Delete: {
        TableName: this.tableName,
        Key: keys.subscription(id),
        ConditionExpression: 'attribute_exists(pk) AND #owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': owner },
      },
    };
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

  /** Two items by key in one consistent read, each undefined when absent. */
  private async batchGetBoth(first: Item, second: Item): Promise<[Item | undefined, Item | undefined]> {
    const items = await this.batchGet([first, second]);
    const find = (key: Item) => items.find((item) => item.pk === key.pk && item.sk === key.sk);
    return [find(first), find(second)];
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
