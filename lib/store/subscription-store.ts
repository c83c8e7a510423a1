import type {
  InitialNotification,
  PublisherState,
  SubscribeCheck,
  SubscribeCheckKeys,
  Subscription,
} from '../domain/model';
import type { SubscriptionStore } from '../domain/ports';
import { logger } from '../logger';
import type { SecretBox } from '../secrets/secret-box';
import { removeDeadLettersOf } from './delivery-records';
import type { DynamoTable, Item } from './dynamo-table';
import { toState, toSubscription } from './items';
import { INDEX, keys } from './keys';
import { ownerState, readOwner } from './owners';
import { deleteSubscriptionWrites, subscribeWrites } from './transactions';

/**
 * What the subscribe function needs, apart from the rest of the subscription store so that its
 * bundle does not carry the reads and deletes (class methods cannot be tree-shaken).
 *
 * Signing secrets are kept encrypted (`signingSecret`, `previousSigningSecret`; sealed with the
 * subscription's id as context) beside `previousSecretUntil` (epoch ms). Only a store built with a
 * secret box writes or reads them, so the functions that never sign never load the data key.
 */
export class DynamoSubscribeStore
  implements Pick<SubscriptionStore, 'subscribeCheck' | 'createSubscription' | 'coveredStates'>
{
  constructor(
    protected readonly table: DynamoTable,
    protected readonly secrets?: SecretBox,
  ) {}

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
    return { exists: false, states: await this.statesUnder(check.resourceAddress), generation };
  }

  /**
   * The current states a subscription to `resourceAddress` covers, read again once it exists: the
   * state of the publisher at exactly the address (one consistent read), otherwise those under it.
   */
  async coveredStates(resourceAddress: string, publisherId: string): Promise<PublisherState[]> {
    const exact = await this.table.get(keys.publisherState(publisherId));
    return exact ? [toState(exact)] : this.statesUnder(resourceAddress);
  }

  /** A query of the publisher tree finds the publishers under the address, a batch read their states. */
  private async statesUnder(resourceAddress: string): Promise<PublisherState[]> {
    const stateKeys: Item[] = [];
    for await (const page of this.table.pages(treeQuery(resourceAddress))) {
      stateKeys.push(...page.map((item) => ({ pk: item.pk, sk: item.sk })));
    }
    const states = stateKeys.length === 0 ? [] : await this.table.batchGet(stateKeys);
    return states.map(toState);
  }

  /**
   * The condition on the subscription's id is its uniqueness (the id follows from what is unique);
   * an item of a retired generation counts as absent and is replaced. One of the owner's count
   * shards is updated on the condition that its generation is still the one written, so a
   * delete-all in between either retires this subscription or happens after it, never half.
   */
  async createSubscription(
    s: Subscription,
    initial?: InitialNotification,
    generation?: number,
  ): Promise<boolean> {
    const signingSecret = s.signing && (await this.box().seal(s.signing.current, s.id));
    let gen = generation ?? (await readOwner(this.table, s.owner)).gen;
    for (;;) {
      const failure = await this.table.transact(
        subscribeWrites(this.table.name, s, gen, { sealedSecret: signingSecret, initial, nowMs: Date.now() }),
      );
      if (!failure) return true;
      if (failure[1]?.Code === 'ConditionalCheckFailed') {
        gen = (await readOwner(this.table, s.owner)).gen;
        continue;
      }
      if (failure[0]?.Code === 'ConditionalCheckFailed') return false;
      throw new Error(`subscription create was cancelled unexpectedly: ${JSON.stringify(failure)}`);
    }
  }

  protected box(): SecretBox {
    if (!this.secrets) throw new Error('this subscription store was built without a secret box');
    return this.secrets;
  }
}

/** The whole subscription store: subscribing, reading and deleting one subscription. */
export class DynamoSubscriptionStore extends DynamoSubscribeStore implements SubscriptionStore {
  async getSubscription(id: string, owner: string): Promise<Subscription | undefined> {
    const subscriptionKey = keys.subscription(id);
    const ownerKey = keys.owner(owner);
    const items = await this.table.batchGet([subscriptionKey, ownerKey]);
    const item = items.find((i) => i.sk === subscriptionKey.sk);
    const { gen } = ownerState(items.find((i) => i.sk === ownerKey.sk));
    return item && item.owner === owner && item.gen === gen ? this.withSecrets(item) : undefined;
  }

  async getSubscriptions(ids: readonly string[]): Promise<ReadonlyMap<string, Subscription>> {
    const items = await this.table.batchGet([...new Set(ids)].map((id) => keys.subscription(id)));
    const owners = [...new Set(items.map((item) => String(item.owner)))];
    const ownerItems = owners.length === 0 ? [] : await this.table.batchGet(owners.map((o) => keys.owner(o)));
    const generations = new Map(owners.map((o) => [keys.owner(o).pk, 0]));
    for (const item of ownerItems) generations.set(String(item.pk), ownerState(item).gen);
    const live = items.filter((item) => item.gen === generations.get(keys.owner(String(item.owner)).pk));
    const subscriptions = await Promise.all(live.map((item) => this.withSecrets(item)));
    return new Map(subscriptions.map((s) => [s.id, s]));
  }

  /** The subscription, with its signing secrets opened when this store signs. */
  private async withSecrets(item: Item): Promise<Subscription> {
    const subscription = toSubscription(item);
    if (!this.secrets || typeof item.signingSecret !== 'string') return subscription;
    const id = subscription.id;
    const previous = item.previousSigningSecret ? String(item.previousSigningSecret) : undefined;
    const [current, previousSecret] = await Promise.all([
      this.secrets.open(item.signingSecret, id),
      previous === undefined ? undefined : this.secrets.open(previous, id),
    ]);
    return {
      ...subscription,
      signing: {
        current,
        ...(previousSecret === undefined
          ? {}
          : { previous: previousSecret, previousUntil: Number(item.previousSecretUntil) }),
      },
    };
  }

  /**
   * Its dead letters go with it. Should that fail, the subscription is gone all the same: a letter
   * left over is of a past incarnation, which nothing shows, and expires with its TTL.
   */
  private async removeDeadLetters(id: string): Promise<void> {
    try {
      await removeDeadLettersOf(this.table, id);
    } catch (error) {
      logger.warn('dead letters left to expire', { id, error });
    }
  }

  async deleteSubscription(id: string, owner: string): Promise<boolean> {
    for (;;) {
      const { gen } = await readOwner(this.table, owner);
      const failure = await this.table.transact(deleteSubscriptionWrites(this.table.name, id, owner, gen));
      if (!failure) {
        await this.removeDeadLetters(id);
        return true;
      }
      // A delete-all came in between: read the generation again (this one is then likely gone).
      if (failure[1]?.Code !== 'ConditionalCheckFailed') return false;
    }
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
