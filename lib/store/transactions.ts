/** The store's transactions as pure builders, free of the SDK: the stores send them. */
import { initialCursor } from '../domain/delivery-cursor';
import type { InitialNotification, Publisher, Subscription } from '../domain/model';
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
 * The publisher's record (only if its id, hence its address, is new), its state item and the
 * counter; with `quota`, also its owner's count, on the condition that it is below the quota
 * (item 3).
 */
export function createPublisherWrites(tableName: string, p: Publisher, quota?: number): TransactItem[] {
  return [
    {
      Put: { TableName: tableName, Item: publisherItem(p), ConditionExpression: 'attribute_not_exists(pk)' },
    },
    { Put: { TableName: tableName, Item: publisherStateItem(p) } },
    countBy(tableName, 'publishers', 1),
    ...(quota === undefined || p.owner === undefined
      ? []
      : [
          {
            Update: {
              TableName: tableName,
              Key: keys.producerPublishers(p.owner),
              UpdateExpression: 'ADD #count :one',
              ConditionExpression: 'attribute_not_exists(#count) OR #count < :quota',
              ExpressionAttributeNames: { '#count': 'count' },
              ExpressionAttributeValues: { ':one': 1, ':quota': quota },
            },
          },
        ]),
  ];
}

/**
 * The publisher's record (only if it exists and is `owner`'s, or has no owner), its state with it,
 * and the counter. Item 0's cancellation reason carries the record, so a refusal tells absent from
 * another's.
 */
export function deletePublisherWrites(
  tableName: string,
  id: string,
  owner: string,
  options: { counted: boolean },
): TransactItem[] {
  // Counted: only a publisher `owner` registered, whose count then goes down; one registered
  // before owners were kept is deleted by the same call without it (publisher-store.ts).
  const condition = options.counted
    ? 'attribute_exists(pk) AND #owner = :owner'
    : 'attribute_exists(pk) AND (attribute_not_exists(#owner) OR #owner = :owner)';
  return [
    {
      Delete: {
        TableName: tableName,
        Key: keys.publisher(id),
        ConditionExpression: condition,
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': owner },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    { Delete: { TableName: tableName, Key: keys.publisherState(id) } },
    countBy(tableName, 'publishers', -1),
    ...(options.counted
      ? [
          {
            Update: {
              TableName: tableName,
              Key: keys.producerPublishers(owner),
              UpdateExpression: 'ADD #count :minusOne',
              ExpressionAttributeNames: { '#count': 'count' },
              ExpressionAttributeValues: { ':minusOne': -1 },
            },
          },
        ]
      : []),
  ];
}
