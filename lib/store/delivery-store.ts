import type {
  AttemptFailure,
  CompletedAttempt,
  DeadLetterRecord,
  DeliveryAttempt,
  LeaseOutcome,
  PagePosition,
  Subscription,
} from '../domain/model';
import type { DeliveryStore, SubscriptionStore } from '../domain/ports';
import { DeliveryCursors } from './delivery-cursors';
import { recordDeadLetter } from './delivery-records';
import type { DynamoTable } from './dynamo-table';
import { toSubscription } from './items';
import { INDEX, keys } from './keys';

/** What fan-out and delivery read and write: covering subscriptions and the ordering cursors. */
export class DynamoDeliveryStore implements DeliveryStore {
  private readonly cursors: DeliveryCursors;

  constructor(
    private readonly table: DynamoTable,
    private readonly subscriptions: Pick<SubscriptionStore, 'getSubscriptions' | 'deleteSubscription'>,
  ) {
    this.cursors = new DeliveryCursors(table);
  }

  async subscriptionsAt(
    address: string,
    { startKey, limit }: { readonly startKey?: PagePosition; readonly limit?: number | undefined },
  ): Promise<{ subscriptions: Subscription[]; next: PagePosition | undefined }> {
    const { items, next } = await this.table.page(
      {
        IndexName: INDEX.byAddress,
        KeyConditionExpression: 'addrPk = :pk',
        ExpressionAttributeValues: { ':pk': keys.subscriptionsAt(address) },
        ...(limit === undefined ? {} : { Limit: limit }),
      },
      startKey && { ...startKey },
    );
    return { subscriptions: items.map(toSubscription), next };
  }

  deleteSubscription(id: string, owner: string): Promise<boolean> {
    return this.subscriptions.deleteSubscription(id, owner);
  }

  /** The subscription store's own rule of what is live (delete-all's generations) applies. */
  getSubscriptions(ids: readonly string[]): Promise<ReadonlyMap<string, Subscription>> {
    return this.subscriptions.getSubscriptions(ids);
  }

  acquireDeliveryLeases(attempts: readonly DeliveryAttempt[]): Promise<PromiseSettledResult<LeaseOutcome>[]> {
    return this.cursors.acquireMany(attempts);
  }

  completeDeliveries(attempts: readonly CompletedAttempt[]): Promise<PromiseSettledResult<void>[]> {
    return this.cursors.completeMany(attempts);
  }

  releaseDeliveryLease(attempt: DeliveryAttempt, failure?: AttemptFailure): Promise<void> {
    return this.cursors.release(attempt, failure);
  }

  recordDeadLetter(letter: DeadLetterRecord): Promise<void> {
    return recordDeadLetter(this.table, letter);
  }
}
