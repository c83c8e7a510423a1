import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type {
  AcceptOutcome,
  EventToAccept,
  Publisher,
  PublisherState,
  PublisherStore,
} from '../domain/model';
import type { DynamoTable } from './dynamo-table';
import { toPublisher, toState } from './items';
import { INDEX, keys } from './keys';

export class DynamoPublisherStore implements PublisherStore {
  constructor(private readonly table: DynamoTable) {}

  /** The condition on the publisher's id is its address's uniqueness: the id follows from the address. */
  async createPublisher(p: Publisher): Promise<boolean> {
    const failure = await this.table.transact([
      {
        Put: {
          TableName: this.table.name,
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
          TableName: this.table.name,
          Item: {
            ...keys.publisherState(p.id),
            ...keys.publisherTree(p.resourceAddress),
            publisherId: p.id,
            resourceAddress: p.resourceAddress,
          },
        },
      },
      this.table.countBy('publishers', 1),
    ]);
    if (!failure) return true;
    if (failure[0]?.Code === 'ConditionalCheckFailed') return false;
    throw new Error(`publisher create was cancelled unexpectedly: ${JSON.stringify(failure)}`);
  }

  async getPublisher(id: string): Promise<Publisher | undefined> {
    const item = await this.table.get(keys.publisher(id));
    return item && toPublisher(item);
  }

  async listPublishers(): Promise<Publisher[]> {
    const publishers: Publisher[] = [];
    for await (const page of this.table.pages({
      IndexName: INDEX.byList,
      KeyConditionExpression: 'listPk = :pk',
      ExpressionAttributeValues: { ':pk': keys.publishers },
    })) {
      publishers.push(...page.map(toPublisher));
    }
    return publishers;
  }

  async deletePublisher(id: string): Promise<boolean> {
    const failure = await this.table.transact([
      {
        Delete: {
          TableName: this.table.name,
          Key: keys.publisher(id),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      { Delete: { TableName: this.table.name, Key: keys.publisherState(id) } },
      this.table.countBy('publishers', -1),
    ]);
    return !failure;
  }

  async getState(publisherId: string): Promise<PublisherState | undefined> {
    const item = await this.table.get(keys.publisherState(publisherId));
    return item && toState(item);
  }

  async acceptEvent(e: EventToAccept): Promise<AcceptOutcome> {
    const failure = await this.table.transact([
      {
        Put: {
          TableName: this.table.name,
          Item: {
            ...keys.acceptedEvent(e.publisherId, e.event.source, e.event.id),
            expiresAt: e.dedupExpiresAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Update: {
          TableName: this.table.name,
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
    await this.table.client.send(
      new DeleteCommand({ TableName: this.table.name, Key: keys.acceptedEvent(publisherId, source, id) }),
    );
  }
}
