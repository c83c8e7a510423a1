import type {
  InitialNotification,
  SubscribeCheck,
  SubscribeCheckKeys,
  Subscription,
  SubscriptionStore,
} from '../domain/model';
import type { SecretBox } from '../secrets/secret-box';
import type { DynamoTable, Item, TransactItem } from './dynamo-table';
import { subscriptionAttributes, toState, toSubscription } from './items';
import { INDEX, keys } from './keys';

/** Deletes of delete-all go in chunks: one item per subscription, plus one counter update. */
const DELETE_ALL_CHUNK = 25;
/** Outlives the longest retry window allowed (14 days), so no delivery of the subscription outlives it. */
const INITIAL_CURSOR_TTL_SECONDS = 15 * 24 * 3600;

/**
 * Signing secrets are kept encrypted (`signingSecret`, `previousSigningSecret`; sealed with the
 * subscription's id as context) beside `previousSecretUntil` (epoch ms). Only a store built with a
 * secret box writes or reads them, so the functions that never sign never load the data key.
 */
export class DynamoSubscriptionStore implements SubscriptionStore {
  constructor(
    private readonly table: DynamoTable,
    private readonly secrets?: SecretBox,
  ) {}

  /**
   * One consistent batch read gets the subscription, if it exists already, and the state of a
   * publisher at exactly the address, which is all a subscription to a publisher's address covers.
   * Only for an address above publishers does a query of the publisher tree find them, and a
   * second batch read get their states.
   */
  async subscribeCheck(check: SubscribeCheckKeys): Promise<SubscribeCheck> {
    this.secrets?.warm();
    const subscription = keys.subscription(check.subscriptionId);
    const exactState = keys.publisherState(check.publisherId);
    const first = await this.table.batchGet([subscription, exactState]);
    const found = first.some((item) => item.sk === subscription.sk);
    const exact = first.find((item) => item.sk === exactState.sk);
    if (found || exact) return { exists: found, states: exact ? [toState(exact)] : [] };
    const stateKeys: Item[] = [];
    for await (const page of this.table.pages(treeQuery(check.resourceAddress))) {
      stateKeys.push(...page.map((item) => ({ pk: item.pk, sk: item.sk })));
    }
    const states = stateKeys.length === 0 ? [] : await this.table.batchGet(stateKeys);
    return { exists: false, states: states.map(toState) };
  }

  /** The condition on the subscription's id is its uniqueness: the id follows from what is unique. */
  async createSubscription(s: Subscription, initial?: InitialNotification): Promise<boolean> {
    const signingSecret = s.signing && (await this.box().seal(s.signing.current, s.id));
    const failure = await this.table.transact([
      {
        Put: {
          TableName: this.table.name,
          Item: {
            ...keys.subscription(s.id),
            ...keys.subscriptionByAddress(s.resourceAddress, s.owner, s.id),
            listPk: keys.subscriptionsOf(s.owner),
            listSk: `${s.createdAt}#${s.id}`,
            ...subscriptionAttributes(s),
            ...(signingSecret ? { signingSecret } : {}),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      this.table.countBy('subscriptions', 1),
      ...(initial ? [this.initialCursor(s.id, initial)] : []),
    ]);
    if (!failure) return true;
    if (failure[0]?.Code === 'ConditionalCheckFailed') return false;
    throw new Error(`subscription create was cancelled unexpectedly: ${JSON.stringify(failure)}`);
  }

  async getSubscription(id: string): Promise<Subscription | undefined> {
    this.secrets?.warm();
    const item = await this.table.get(keys.subscription(id));
    if (!item) return undefined;
    const subscription = toSubscription(item);
    if (!this.secrets || typeof item.signingSecret !== 'string') return subscription;
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

  async listSubscriptions(owner: string, address?: string): Promise<Subscription[]> {
    const query =
      address === undefined
        ? ownedBy(owner)
        : {
            IndexName: INDEX.byAddress,
            KeyConditionExpression: 'addrPk = :pk AND begins_with(addrSk, :owner)',
            ExpressionAttributeValues: {
              ':pk': keys.subscriptionsAt(address),
              ':owner': keys.ownerPrefix(owner),
            },
          };
    const subscriptions: Subscription[] = [];
    for await (const page of this.table.pages(query)) subscriptions.push(...page.map(toSubscription));
    return subscriptions;
  }

  async deleteSubscription(id: string, owner: string): Promise<boolean> {
    const failure = await this.table.transact([
      this.subscriptionDelete(id, owner),
      this.table.countBy('subscriptions', -1),
    ]);
    return !failure;
  }

  async deleteAllSubscriptions(owner: string): Promise<number> {
    let deleted = 0;
    for await (const page of this.table.pages({ ...ownedBy(owner), Limit: DELETE_ALL_CHUNK })) {
      let pending = page.map(toSubscription);
      // A subscription deleted meanwhile fails its condition; drop it and delete the rest.
      while (pending.length > 0) {
        const failure = await this.table.transact([
          ...pending.map((s) => this.subscriptionDelete(s.id, owner)),
          this.table.countBy('subscriptions', -pending.length),
        ]);
        if (!failure) {
          deleted += pending.length;
          break;
        }
        pending = pending.filter((_, i) => failure[i]?.Code !== 'ConditionalCheckFailed');
      }
    }
    return deleted;
  }

  private box(): SecretBox {
    if (!this.secrets) throw new Error('this subscription store was built without a secret box');
    return this.secrets;
  }

  private subscriptionDelete(id: string, owner: string): TransactItem {
    return {
      Delete: {
        TableName: this.table.name,
        Key: keys.subscription(id),
        ConditionExpression: 'attribute_exists(pk) AND #owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': owner },
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

/** The owner's subscriptions, oldest first. */
function ownedBy(owner: string) {
  return {
    IndexName: INDEX.byList,
    KeyConditionExpression: 'listPk = :pk',
    ExpressionAttributeValues: { ':pk': keys.subscriptionsOf(owner) },
  };
}

/** The keys of the publishers' state items at or under the address (keys-only index). */
function treeQuery(address: string) {
  return {
    IndexName: INDEX.publisherTree,
    KeyConditionExpression: 'treePk = :pk AND begins_with(treeSk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.treePartition(address), ':prefix': `${address}/` },
  };
}
