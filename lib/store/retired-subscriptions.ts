import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RetiredSubscriptions } from '../domain/model';
import type { RetiredSubscriptionStore } from '../domain/ports';
import { conditionHeld } from './conditional-write';
import { removeDeadLettersOf } from './delivery-records';
import type { DynamoTable } from './dynamo-table';
import { INDEX, INDEX_KEY, keys } from './keys';
import { type OwnerState, ownerState } from './owners';
import { queryPage } from './query-page';
import { retireAllWrites } from './transactions';

/** Retired subscriptions removed at once: one conditional delete each, in parallel. */
const REMOVAL_PAGE = 100;

/**
 * Delete-all in constant time: the owner's generation moves on in one transaction, which retires
 * every subscription of the earlier one (the reads of subscription-store.ts see only the current
 * generation); a queued job then removes the retired items.
 */
export class DynamoRetiredSubscriptions implements RetiredSubscriptionStore {
  constructor(private readonly table: DynamoTable) {}

  /**
   * One transaction starts the owner's next generation on every shard of its count and takes the
   * count off the counters, on the condition that no shard changed since they were read (else
   * read again and retry), so the counters stay exact. What it retired, and anything an earlier
   * clean-up left, is returned.
   */
  async retireAllSubscriptions(owner: string): Promise<RetiredSubscriptions | undefined> {
    for (;;) {
      const shards = await this.ownerShards(owner);
      const gen = Math.max(0, ...[...shards.values()].map((shard) => shard.gen));
      const count = [...shards.values()].reduce((total, shard) => total + shard.count, 0);
      const cleanedTo = shards.get(keys.owner(owner).sk)?.cleanedTo ?? 0;
      if (count === 0) {
        return gen > cleanedTo ? { owner, fromGeneration: cleanedTo, toGeneration: gen } : undefined;
      }
      const failure = await this.table.transact(retireAllWrites(this.table.name, owner, shards, gen + 1));
      if (!failure) return { owner, fromGeneration: cleanedTo, toGeneration: gen + 1 };
    }
  }

  async removeRetired(
    job: RetiredSubscriptions,
    stop: () => boolean,
  ): Promise<RetiredSubscriptions | undefined> {
    let gen = job.fromGeneration;
    let after = job.after;
    while (gen < job.toGeneration) {
      // Checked after the first page, so that every run moves the job on.
      if (after && stop()) return { ...job, fromGeneration: gen, after };
      const page = await queryPage(
        this.table,
        {
          IndexName: INDEX.byList,
          KeyConditionExpression: 'listPk = :pk',
          ExpressionAttributeValues: { ':pk': keys.subscriptionsOf(job.owner, gen) },
        },
        { limit: REMOVAL_PAGE, after },
        INDEX_KEY.byList,
      );
      const retiredGen = gen;
      await Promise.all(
        page.items.map((item) => this.removeIfRetired(String(item.id), String(item.createdAt), retiredGen)),
      );
      after = page.next;
      if (!after) gen++;
    }
    await this.markCleaned(job.owner, job.toGeneration);
    return undefined;
  }

  /**
   * Only the item of the retired generation: a subscription made again meanwhile stays, and so do
   * the dead letters of its new incarnation.
   */
  private async removeIfRetired(id: string, createdAt: string, gen: number): Promise<void> {
    await removeDeadLettersOf(this.table, id, createdAt);
    await conditionHeld(
      this.table.client.send(
        new DeleteCommand({
          TableName: this.table.name,
          Key: keys.subscription(id),
          ConditionExpression: 'gen = :gen',
          ExpressionAttributeValues: { ':gen': gen },
        }),
      ),
    );
  }

  private async markCleaned(owner: string, upTo: number): Promise<void> {
    await conditionHeld(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: keys.owner(owner),
          UpdateExpression: 'SET cleanedTo = :upTo',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(cleanedTo) OR cleanedTo < :upTo)',
          ExpressionAttributeValues: { ':upTo': upTo },
        }),
      ),
    );
  }

  /** The shards of the owner's count, by sort key. */
  private async ownerShards(owner: string): Promise<Map<string, OwnerState>> {
    const shards = new Map<string, OwnerState>();
    for await (const page of this.table.pages({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.ownerPartition(owner) },
      ConsistentRead: true,
    })) {
      for (const item of page) shards.set(String(item.sk), ownerState(item));
    }
    return shards;
  }
}
