import type { CounterStore } from '../domain/ports';
import type { DynamoTable } from './dynamo-table';
import { type CounterKind, keys } from './keys';

/**
 * The exact counts the gauges report: sharded counter items in one partition, updated in the same
 * transactions that make and remove subscriptions and publishers (transactions.ts).
 */
export class DynamoCounterStore implements CounterStore {
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
}
