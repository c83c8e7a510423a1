import type {
  InitialNotification,
  Page,
  PagePosition,
  PageRequest,
  PublisherState,
  RetiredSubscriptions,
  SubscribeCheck,
  SubscribeCheckKeys,
  Subscription,
} from '../domain/model';
import type { SubscriptionStore } from '../domain/ports';
import { logger } from '../logger';
import type { SecretBox } from '../secrets/secret-box';
import { DynamoDeadLetterStore } from './dead-letter-store';
import type { DynamoTable, Item } from './dynamo-table';
import { toState, toSubscription } from './items';
import { INDEX, INDEX_KEY, keys } from './keys';
import { type OwnerState, ownerState, readOwner } from './owners';
import { deleteSubscriptionWrites, retireAllWrites, subscribeWrites } from './transactions';

/** Retired subscriptions removed at once: one conditional delete each, in parallel. */
const REMOVAL_PAGE = 100;

/**
 * The subscriptions: made, read, listed, re-keyed, deleted one by one, and retired all at once.
 *
 * Delete-all runs in constant time: the owner's generation moves on in one transaction, which
 * retires every subscription of the earlier one (every read here sees only the current
 * generation); a queued job then removes the retired items (`removeRetired`).
 *
 * Signing secrets are kept encrypted (`signingSecret`, `previousSigningSecret`; sealed with the
 * subscription's id as context) beside `previousSecretUntil` (epoch ms). Only a store built with a
 * secret box writes or reads them, so the functions that never sign never load the data key.
 */
export class DynamoSubscriptionStore implements SubscriptionStore {
  private readonly deadLetters: DynamoDeadLetterStore;

  constructor(
    private readonly table: DynamoTable,
    private readonly secrets?: SecretBox,
  ) {
    this.deadLetters = new DynamoDeadLetterStore(table);
  }

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
    // The owner's ten count shards (its generation on each, the quota's count their sum) in one
    // query beside the batch read, not ten more items in it: one read unit instead of ten.
    const [first, shards] = await Promise.all([
      this.table.batchGet([subscription, exactState]),
      this.ownerShards(check.owner),
    ]);
    const generation = (shards.get(keys.owner(check.owner).sk) ?? ownerState(undefined)).gen;
    const ownerCount = [...shards.values()].reduce((sum, shard) => sum + shard.count, 0);
    const existing = first.find((item) => item.sk === subscription.sk);
    const found = existing !== undefined && existing.gen === generation;
    const exact = first.find((item) => item.sk === exactState.sk);
    if (found || exact)
      return { exists: found, states: exact ? [toState(exact)] : [], generation, ownerCount };
    return { exists: false, states: await this.statesUnder(check.resourceAddress), generation, ownerCount };
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
    for await (const page of this.table.pages(keys.publishersUnder(resourceAddress))) {
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
      await this.deadLetters.removeAllOf(id);
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
      const page = await this.table.listPage(
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
    const page = await this.table.listPage(
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

  /**
   * Every owner's subscriptions at exactly the address, retired ones too: delivery reads each again
   * (`getSubscriptions`) before it sends, which drops them.
   */
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

  /**
   * One read, of the owner's generation (a subscription retired by delete-all is gone), then one
   * update: the sealed current secret is copied as it is, since its context (the id) stays.
   */
  async rotateSigningSecret(
    id: string,
    owner: string,
    secret: string,
    previousUntil: number,
  ): Promise<boolean> {
    const [sealed, { gen }] = await Promise.all([this.box().seal(secret, id), readOwner(this.table, owner)]);
    return this.table.update({
      Key: keys.subscription(id),
      // A subscription made before secrets existed has no current one to keep.
      UpdateExpression:
        'SET previousSigningSecret = if_not_exists(signingSecret, :none), previousSecretUntil = :until, signingSecret = :secret',
      ConditionExpression: 'attribute_exists(pk) AND #owner = :owner AND gen = :gen',
      ExpressionAttributeNames: { '#owner': 'owner' },
      ExpressionAttributeValues: {
        ':owner': owner,
        ':gen': gen,
        ':secret': sealed,
        ':until': previousUntil,
        ':none': '',
      },
    });
  }

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
      const page = await this.table.listPage(
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
    await this.deadLetters.removeAllOf(id, createdAt);
    await this.table.delete({
      Key: keys.subscription(id),
      ConditionExpression: 'gen = :gen',
      ExpressionAttributeValues: { ':gen': gen },
    });
  }

  private async markCleaned(owner: string, upTo: number): Promise<void> {
    await this.table.update({
      Key: keys.owner(owner),
      UpdateExpression: 'SET cleanedTo = :upTo',
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(cleanedTo) OR cleanedTo < :upTo)',
      ExpressionAttributeValues: { ':upTo': upTo },
    });
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

  private box(): SecretBox {
    if (!this.secrets) throw new Error('this subscription store was built without a secret box');
    return this.secrets;
  }
}
