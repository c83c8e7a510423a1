import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RetiredSubscriptionStore, RetiredSubscriptions } from '../domain/model';
import type { DynamoTable } from './dynamo-table';
import { INDEX, keys } from './keys';
import { LIST_KEY, ownerState } from './owners';
import { queryPage } from './query-page';

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
   * One transaction starts the owner's next generation and takes its count off the counters, on
   * the condition that neither changed since they were read (else read again and retry), so the
   * counters stay exact. What it retired, and anything an earlier clean-up left, is returned.
   */
  async retireAllSubscriptions(owner: string): Promise<RetiredSubscriptions | undefined> {
    for (;;) {
      const state = await this.ownerState(owner);
      if (state.count === 0) {
        return state.gen > state.cleanedTo
          ? { owner, fromGeneration: state.cleanedTo, toGeneration: state.gen }
          : undefined;
      }
      const failure = await this.table.transact([
        {
          Update: {
            TableName: this.table.name,
            Key: keys.owner(owner),
            UpdateExpression: 'SET gen = :next, #count = :zero',
            ConditionExpression: 'gen = :gen AND #count = :count',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: {
              ':gen': state.gen,
              ':next': state.gen + 1,
              ':count': state.count,
              ':zero': 0,
            },
          },
        },
        this.table.countBy('subscriptions', -state.count),
      ]);
      if (!failure) return { owner, fromGeneration: state.cleanedTo, toGeneration: state.gen + 1 };
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
        LIST_KEY,
      );
      const retiredGen = gen;
      await Promise.all(page.items.map((item) => this.removeIfRetired(String(item.id), retiredGen)));
      after = page.next;
      if (!after) gen++;
    }
    await this.markCleaned(job.owner, job.toGeneration);
    return undefined;
  }

  /** Only the item of the retired generation: a subscription made again meanwhile stays. */
  private async removeIfRetired(id: string, gen: number): Promise<void> {
    await ignoringFailedCondition(
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
    await ignoringFailedCondition(
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

  private async ownerState(owner: string) {
    return ownerState(await this.table.get(keys.owner(owner)));
  }
}

async function ignoringFailedCondition(sending: Promise<unknown>): Promise<void> {
  try {
    await sending;
  } catch (error) {
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
  }
}
