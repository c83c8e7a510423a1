/** The store's transactions as pure builders, free of the SDK: the stores send them. */
import { initialCursor } from '../domain/delivery-cursor';
import type { EventToAccept, InitialNotification, Publisher, Subscription } from '../domain/model';
import type { TransactItem } from './dynamo-table';
import { publisherItem, publisherStateItem, subscriptionItem } from './items';
import { type CounterKind, keys, OWNER_SHARDS } from './keys';
import type { OwnerState } from './owners';

/** The counter change of a create or delete, made in the same transaction as the data. */
function countBy(tableName: string, kind: CounterKind, delta: number): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: keys.counterShard(kind),
      UpdateExpression: 'ADD n :delta',
      ExpressionAttributeValues: { ':delta': delta },
    },
  };
}

/** One shard of the owner's count, changed on the condition that `gen` is still its generation. */
function ownerCount(tableName: string, owner: string, gen: number, delta: number): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: keys.randomOwnerShard(owner),
      UpdateExpression: 'SET gen = :gen ADD #count :delta',
      // A shard not written yet is in generation 0: delete-all writes every shard.
      ConditionExpression: gen === 0 ? 'attribute_not_exists(pk) OR gen = :gen' : 'gen = :gen',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':gen': gen, ':delta': delta },
    },
  };
}

/**
 * The subscription (only if absent, or of a retired generation), its owner's count, the counter
 * and, after an initial notification, the delivery cursor as if that event had been delivered.
 * Items 0 and 1 carry the conditions the store reads the cancellation reasons of.
 */
export function subscribeWrites(
  tableName: string,
  s: Subscription,
  gen: number,
  options: { sealedSecret?: string | undefined; initial?: InitialNotification | undefined; nowMs: number },
): TransactItem[] {
  const { sealedSecret, initial, nowMs } = options;
  return [
    {
      Put: {
        TableName: tableName,
        Item: { ...subscriptionItem(s, gen), ...(sealedSecret ? { signingSecret: sealedSecret } : {}) },
        ConditionExpression: 'attribute_not_exists(pk) OR gen <> :gen',
        ExpressionAttributeValues: { ':gen': gen },
      },
    },
    ownerCount(tableName, s.owner, gen, 1),
    countBy(tableName, 'subscriptions', 1),
    ...(initial
      ? [
          {
            Put: {
              TableName: tableName,
              Item: {
                ...keys.deliveryCursor(s.id, initial.resourceAddress),
                ...initialCursor(initial, nowMs),
              },
            },
          },
        ]
      : []),
  ];
}

/** Only its owner's, of the current generation; item 1 fails when a delete-all came in between. */
export function deleteSubscriptionWrites(
  tableName: string,
  id: string,
  owner: string,
  gen: number,
): TransactItem[] {
  return [
    {
      Delete: {
        TableName: tableName,
        Key: keys.subscription(id),
        ConditionExpression: 'attribute_exists(pk) AND #owner = :owner AND gen = :gen',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': owner, ':gen': gen },
      },
    },
    ownerCount(tableName, owner, gen, -1),
    countBy(tableName, 'subscriptions', -1),
  ];
}

/**
 * Delete-all: every shard of the owner's count to generation `next` and 0, each on the condition
 * that it is as read (`shards`, by sort key), and the count off the counter.
 */
export function retireAllWrites(
  tableName: string,
  owner: string,
  shards: ReadonlyMap<string, OwnerState>,
  next: number,
): TransactItem[] {
  const count = [...shards.values()].reduce((total, shard) => total + shard.count, 0);
  return [
    ...Array.from({ length: OWNER_SHARDS }, (_, shard): TransactItem => {
      const key = keys.ownerShard(owner, shard);
      const read = shards.get(key.sk);
      return {
        Update: {
          TableName: tableName,
          Key: key,
          UpdateExpression: 'SET gen = :next, #count = :zero',
          ConditionExpression: read ? 'gen = :gen AND #count = :count' : 'attribute_not_exists(pk)',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: {
            ':next': next,
            ':zero': 0,
            ...(read ? { ':gen': read.gen, ':count': read.count } : {}),
          },
        },
      };
    }),
    countBy(tableName, 'subscriptions', -count),
  ];
}

/**
 * The publish transaction: remember (source, id) until the de-duplication window ends, and make
 * the event the current state if the publisher exists, the source is one of its address's
 * suffixes, its address is at or above every value's address and the event is not older.
 */
export function acceptEventWrites(tableName: string, e: EventToAccept): TransactItem[] {
  const addressValues: Record<string, string> = {};
  const addressLists: string[] = [];
  // IN takes at most 100 operands; an address has up to 256 segments.
  for (let start = 0; start < e.publisherAddresses.length; start += 100) {
    const names = e.publisherAddresses.slice(start, start + 100).map((address, j) => {
      const name = `:address${start + j}`;
      addressValues[name] = address;
      return name;
    });
    addressLists.push(`resourceAddress IN (${names.join(', ')})`);
  }
  const addressCondition = addressLists.length > 0 ? ` AND (${addressLists.join(' OR ')})` : '';
  return [
    {
      Put: {
        TableName: tableName,
        Item: {
          ...keys.acceptedEvent(e.publisherId, e.event.source, e.event.id),
          expiresAt: e.dedupExpiresAt,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Update: {
        TableName: tableName,
        Key: keys.publisherState(e.publisherId),
        UpdateExpression: 'SET #event = :event, timeKey = :timeKey, acceptedAt = :acceptedAt',
        ConditionExpression:
          'attribute_exists(pk) AND contains(sources, :source) AND (attribute_not_exists(timeKey) OR timeKey <= :timeKey)' +
          addressCondition,
        ExpressionAttributeNames: { '#event': 'event' },
        ExpressionAttributeValues: {
          ':event': JSON.stringify(e.event),
          ':source': e.event.source,
          ':timeKey': e.timeKey,
          ':acceptedAt': e.acceptedAt,
          ...addressValues,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
  ];
}

/** The publisher's record (only if its id, hence its address, is new), its state item and the counter. */
export function createPublisherWrites(tableName: string, p: Publisher): TransactItem[] {
  return [
    {
      Put: { TableName: tableName, Item: publisherItem(p), ConditionExpression: 'attribute_not_exists(pk)' },
    },
    { Put: { TableName: tableName, Item: publisherStateItem(p) } },
    countBy(tableName, 'publishers', 1),
  ];
}

/** The publisher's record (only if it exists), its state with it, and the counter. */
export function deletePublisherWrites(tableName: string, id: string): TransactItem[] {
  return [
    {
      Delete: { TableName: tableName, Key: keys.publisher(id), ConditionExpression: 'attribute_exists(pk)' },
    },
    { Delete: { TableName: tableName, Key: keys.publisherState(id) } },
    countBy(tableName, 'publishers', -1),
  ];
}
