import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { StoreStatus } from '../domain/ports';
import type { DynamoTable } from './dynamo-table';
import { type CounterKind, keys } from './keys';

/** Health and the exact counts the gauges report. */
export class DynamoStoreStatus implements StoreStatus {
  constructor(private readonly table: DynamoTable) {}

  async counts(): Promise<{ subscriptions: number; publishers: number }> {
    const totals = { subscriptions: 0, publishers: 0 };
    for await (const page of this.table.pages({
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
    await this.table.client.send(new GetCommand({ TableName: this.table.name, Key: keys.health }));
  }
}
