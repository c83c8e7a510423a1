import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type {
  InitialNotification,
  Page,
  PageRequest,
  RetiredSubscriptions,
  SubscribeCheck,
  SubscribeCheckKeys,
  Subscription,
  SubscriptionStore,
} from '../domain/model';
import type { DynamoTable, Item, TransactItem } from './dynamo-table';
import { subscriptionAttributes, toState, toSubscription } from './items';
import { INDEX, keys } from './keys';

/** Outlives the longest retry window allowed (14 days), so no delivery of the subscription outlives it. */
const INITIAL_CURSOR_TTL_SECONDS = 15 * 24 * 3600;
/** Retired subscriptions removed at once: one conditional delete each, in parallel. */
const REMOVAL_PAGE = 100;
const LIST_KEY = ['pk', 'sk', 'listPk', 'listSk'] as const;
const ADDRESS_KEY = ['pk', 'sk', 'addrPk', 'addrSk'] as const;

/** The owner's item: its current generation, its live subscriptions, and up to where retired ones are removed. */
interface OwnerState {
  readonly gen: number;
  readonly count: number;
  readonly cleanedTo: number;
}

export class DynamoSubscriptionStore implements SubscriptionStore {
  constructor(private readonly table: DynamoTable) {}

  /**
   * One consistent batch read gets the subscription, if it exists already, the owner's generation
   * (a subscription of an earlier one was retired by delete-all) and the state of a publisher at
   * exactly the address, which is all a subscription to a publisher's address covers. Only for an
   * address above publishers does a query of the publisher tree find them, and a second batch
   * read get their states.
   */
  async subscribeCheck(check: SubscribeCheckKeys): Promise<SubscribeCheck> {
    const subscription = keys.subscription(check.subscriptionId);
    const exactState = keys.publisherState(check.publisherId);
    const owner = keys.owner(check.owner);
    const first = await this.table.batchGet([subscription, exactState, owner]);
    const generation = ownerState(first.find((item) => item.sk === owner.sk)).gen;
    const existing = first.find((item) => item.sk === subscription.sk);
    const found = existing !== undefined && existing.gen === generation;
    const exact = first.find((item) => item.sk === exactState.sk);
    if (found || exact) return { exists: found, states: exact ? [toState(exact)] : [], generation };
    const stateKeys: Item[] = [];
    for await (const page of this.table.pages(treeQuery(check.resourceAddress))) {
      stateKeys.push(...page.map((item) => ({ pk: item.pk, sk: item.sk })));
    }
    const states = stateKeys.length === 0 ? [] : await this.table.batchGet(stateKeys);
    return { exists: false, states: states.map(toState), generation };
  }

  /**
   * The condition on the subscription's id is its uniqueness (the id follows from what is unique);
   * an item of a retired generation counts as absent and is replaced. The owner's item is updated
   * on the condition that its generation is still the one written, so a delete-all in between
   * either retires this subscription or happens after it, never half.
   */
  async createSubscription(
    s: Subscription,
    initial?: InitialNotification,
    generation?: number,
  ): Promise<boolean> {
    let gen = generation ?? (await this.ownerState(s.owner)).gen;
    for (;;) {
      const failure = await this.table.transact([
        {
          Put: {
            TableName: this.table.name,
            Item: {
              ...keys.subscription(s.id),
              ...keys.subscriptionByAddress(s.resourceAddress, s.owner, gen, s.id),
              listPk: keys.subscriptionsOf(s.owner, gen),
              listSk: `${s.createdAt}#${s.id}`,
              gen,
              ...subscriptionAttributes(s),
            },
            ConditionExpression: 'attribute_not_exists(pk) OR gen <> :gen',
            ExpressionAttributeValues: { ':gen': gen },
          },
        },
        this.ownerCount(s.owner, gen, 1),
        this.table.countBy('subscriptions', 1),
        ...(initial ? [this.initialCursor(s.id, initial)] : []),
      ]);
      if (!failure) return true;
      if (failure[1]?.Code === 'ConditionalCheckFailed') {
        gen = (await this.ownerState(s.owner)).gen;
        continue;
      }
      if (failure[0]?.Code === 'ConditionalCheckFailed') return false;
      throw new Error(`subscription create was cancelled unexpectedly: ${JSON.stringify(failure)}`);
    }
  }

  async getSubscription(id: string, owner?: string): Promise<Subscription | undefined> {
    const subscriptionKey = keys.subscription(id);
    if (owner === undefined) {
      const item = await this.table.get(subscriptionKey);
      if (!item) return undefined;
      const { gen } = await this.ownerState(String(item.owner));
      return item.gen === gen ? toSubscription(item) : undefined;
    }
    const ownerKey = keys.owner(owner);
    const items = await this.table.batchGet([subscriptionKey, ownerKey]);
    const item = items.find((i) => i.sk === subscriptionKey.sk);
    const { gen } = ownerState(items.find((i) => i.sk === ownerKey.sk));
    return item && item.owner === owner && item.gen === gen ? toSubscription(item) : undefined;
  }

  async listSubscriptions(
    owner: string,
    address: string | undefined,
    request: PageRequest,
  ): Promise<Page<Subscription> | undefined> {
    const { gen } = await this.ownerState(owner);
    const after = request.after;
    if (address === undefined) {
      const listPk = keys.subscriptionsOf(owner, gen);
      if (after && after.listPk !== listPk) return undefined;
      const page = await this.table.page(
        {
          IndexName: INDEX.byList,
          KeyConditionExpression: 'listPk = :pk',
          ExpressionAttributeValues: { ':pk': listPk },
        },
        request,
        LIST_KEY,
      );
      return { items: page.items.map(toSubscription), next: page.next };
    }
    const prefix = keys.ownerPrefix(owner, gen);
    const addrPk = keys.subscriptionsAt(address);
    if (after && (after.addrPk !== addrPk || !String(after.addrSk).startsWith(prefix))) return undefined;
    const page = await this.table.page(
      {
        IndexName: INDEX.byAddress,
        KeyConditionExpression: 'addrPk = :pk AND begins_with(addrSk, :owner)',
        ExpressionAttributeValues: { ':pk': addrPk, ':owner': prefix },
      },
      request,
      ADDRESS_KEY,
    );
    return { items: page.items.map(toSubscription), next: page.next };
  }

  async deleteSubscription(id: string, owner: string): Promise<boolean> {
    for (;;) {
      const { gen } = await this.ownerState(owner);
      const failure = await this.table.transact([
        {
          Delete: {
            TableName: this.table.name,
            Key: keys.subscription(id),
            ConditionExpression: 'attribute_exists(pk) AND #owner = :owner AND gen = :gen',
            ExpressionAttributeNames: { '#owner': 'owner' },
            ExpressionAttributeValues: { ':owner': owner, ':gen': gen },
          },
        },
        this.ownerCount(owner, gen, -1),
        this.table.countBy('subscriptions', -1),
      ]);
      if (!failure) return true;
      // A delete-all came in between: read the generation again (this one is then likely gone).
      if (failure[1]?.Code !== 'ConditionalCheckFailed') return false;
    }
  }

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
      const page = await this.table.page(
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

  private async ownerState(owner: string): Promise<OwnerState> {
    return ownerState(await this.table.get(keys.owner(owner)));
  }

  /** The owner's count, changed on the condition that `gen` is still its generation. */
  private ownerCount(owner: string, gen: number, delta: number): TransactItem {
    return {
      Update: {
        TableName: this.table.name,
        Key: keys.owner(owner),
        UpdateExpression: 'SET gen = :gen ADD #count :delta',
        // An owner without an item is in generation 0.
        ConditionExpression: gen === 0 ? 'attribute_not_exists(pk) OR gen = :gen' : 'gen = :gen',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':gen': gen, ':delta': delta },
      },
    };
  }

  /** The delivery cursor of a new subscription, as if it had been delivered its initial event. */
  private initialCursor(subscriptionId: string, initial: InitialNotification): TransactItem {
    return {
      Put: {
        TableName: this.table.name,
        Item: {
          ...keys.deliveryCursor(subscriptionId, initial.resourceAddress),
          deliveredTimeKey: initial.timeKey,
          deliveredEvent: `${initial.event.source}#${initial.event.id}`,
          expiresAt: Math.ceil(Date.now() / 1000) + INITIAL_CURSOR_TTL_SECONDS,
        },
      },
    };
  }
}

function ownerState(item: Item | undefined): OwnerState {
  return {
    gen: Number(item?.gen ?? 0),
    count: Number(item?.count ?? 0),
    cleanedTo: Number(item?.cleanedTo ?? 0),
  };
}

async function ignoringFailedCondition(sending: Promise<unknown>): Promise<void> {
  try {
    await sending;
  } catch (error) {
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
  }
}

/** The keys of the publishers' state items at or under the address. */
function treeQuery(address: string) {
  return {
    IndexName: INDEX.publisherTree,
    KeyConditionExpression: 'treePk = :pk AND begins_with(treeSk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.treePartition(address), ':prefix': `${address}/` },
  };
}
