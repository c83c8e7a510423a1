import type { EventToAccept } from '../domain/model';
import type { TransactItem } from './dynamo-table';
import { keys } from './keys';

/**
 * The publish transaction: remember (source, id) until the de-duplication window ends, and make
 * the event the current state if the publisher exists, the source is one of its address's
 * suffixes and the event is not older. A module of its own, free of the SDK, so that the bench's
 * baseline can send exactly it.
 */
export function acceptEventWrites(tableName: string, e: EventToAccept): TransactItem[] {
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
          'attribute_exists(pk) AND contains(sources, :source) AND (attribute_not_exists(timeKey) OR timeKey <= :timeKey)',
        ExpressionAttributeNames: { '#event': 'event' },
        ExpressionAttributeValues: {
          ':event': JSON.stringify(e.event),
          ':source': e.event.source,
          ':timeKey': e.timeKey,
          ':acceptedAt': e.acceptedAt,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
  ];
}
