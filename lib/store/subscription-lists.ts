import type { Page, PageRequest, Subscription } from '../domain/model';
import type { SubscriptionLists } from '../domain/ports';
import type { DynamoTable } from './dynamo-table';
import { toSubscription } from './items';
import { INDEX, INDEX_KEY, keys } from './keys';
import { ownerState } from './owners';
import { queryPage } from './query-page';

/**
 * An owner's subscriptions of its current generation, a page at a time (apart from
 * subscription-store.ts so that the subscribe function does not bundle paging).
 */
export class DynamoSubscriptionLists implements SubscriptionLists {
  constructor(private readonly table: DynamoTable) {}

  async listSubscriptions(
    owner: string,
    address: string | undefined,
    request: PageRequest,
  ): Promise<Page<Subscription> | undefined> {
    const { gen } = ownerState(await this.table.get(keys.owner(owner)));
    const after = request.after;
    if (address === undefined) {
      const listPk = keys.subscriptionsOf(owner, gen);
      if (after && after.listPk !== listPk) return undefined;
      const page = await queryPage(
        this.table,
        {
          IndexName: INDEX.byList,
          KeyConditionExpression: 'listPk = :pk',
          ExpressionAttributeValues: { ':pk': listPk },
        },
        request,
        INDEX_KEY.byList,
      );
      return { items: page.items.map(toSubscription), next: page.next };
    }
    const prefix = keys.ownerPrefix(owner, gen);
    const addrPk = keys.subscriptionsAt(address);
    if (after && (after.addrPk !== addrPk || !String(after.addrSk).startsWith(prefix))) return undefined;
    const page = await queryPage(
      this.table,
      {
        IndexName: INDEX.byAddress,
        KeyConditionExpression: 'addrPk = :pk AND begins_with(addrSk, :owner)',
        ExpressionAttributeValues: { ':pk': addrPk, ':owner': prefix },
      },
      request,
      INDEX_KEY.byAddress,
    );
    return { items: page.items.map(toSubscription), next: page.next };
  }
}
