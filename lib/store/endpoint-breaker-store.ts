import type { EndpointBreakerStore } from '../domain/ports';
import type { DynamoTable } from './dynamo-table';
import { keys } from './keys';

/** The breaker's `failingSince` and `suspendedAt` on the subscription item (docs/architecture.md). */
export class DynamoEndpointBreakerStore implements EndpointBreakerStore {
  constructor(private readonly table: DynamoTable) {}

  async recordEndpointFailure(id: string, at: number): Promise<void> {
    await this.table.update({
      Key: keys.subscription(id),
      UpdateExpression: 'SET failingSince = if_not_exists(failingSince, :at)',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':at': at },
    });
  }

  async clearEndpointFailure(id: string): Promise<void> {
    await this.table.update({
      Key: keys.subscription(id),
      UpdateExpression: 'REMOVE failingSince',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(suspendedAt)',
    });
  }

  async suspendEndpoint(id: string, at: number): Promise<boolean> {
    return this.table.update({
      Key: keys.subscription(id),
      UpdateExpression: 'SET suspendedAt = :at',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(suspendedAt)',
      ExpressionAttributeValues: { ':at': at },
    });
  }

  async resumeEndpoint(id: string): Promise<void> {
    await this.table.update({
      Key: keys.subscription(id),
      UpdateExpression: 'REMOVE suspendedAt, failingSince',
      ConditionExpression: 'attribute_exists(pk)',
    });
  }
}
