import { initialCursor } from '../../../lib/domain/delivery-cursor';
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
} from '../../../lib/domain/model';
import type { SubscriptionStore } from '../../../lib/domain/ports';
import { openSigningSecrets, type SealedSigningSecrets } from '../../../lib/secrets/sealed-signing-secrets';
import type { SecretBox } from '../../../lib/secrets/secret-box';
import type { Journal, JournalWrite } from './journal';
import { bySortKey, deletesUnder, diskKeys, pageOf } from './keys';
import { publisherState, statesAtOrUnder } from './publisher-store';

/** A subscription as the journal keeps it: its members and, when it has them, its sealed secrets. */
interface SubscriptionItem extends SealedSigningSecrets {
  readonly id: string;
  readonly resourceAddress: string;
  readonly endpointUri: string;
  readonly owner: string;
  readonly createdAt: string;
  readonly signingSecret?: string;
  readonly previousSigningSecret?: string;
  readonly previousSecretUntil?: number;
}

interface OwnerItem {
  readonly gen: number;
}

/**
 * The subscriptions on the node's disk, as DynamoSubscriptionStore keeps them in the region.
 *
 * Delete-all removes the owner's subscriptions (and their dead letters) in the same commit that
 * moves the owner's generation on, so nothing retired is left behind to hide or to remove later;
 * the generation remains what a list's page position is valid for (a position from before a
 * delete-all is refused, as in the region).
 *
 * With a secret box, signing secrets are sealed before they are written, and reads open them
 * (`signing`); without one, reads leave them out and writing one throws.
 */
export class DiskSubscriptionStore implements SubscriptionStore {
  constructor(
    private readonly journal: Journal,
    private readonly secrets?: SecretBox,
  ) {}

  /** The subscription if it exists, and the states it covers: the publisher at exactly the address, else those under it. */
  async subscribeCheck(check: SubscribeCheckKeys): Promise<SubscribeCheck> {
    const generation = this.generation(check.owner);
    const exists = this.journal.get(diskKeys.subscription(check.subscriptionId)) !== undefined;
    const exact = publisherState(this.journal, check.publisherId);
    if (exists || exact) return { exists, states: exact ? [exact] : [], generation };
    return { exists, states: statesAtOrUnder(this.journal, check.resourceAddress), generation };
  }

  async coveredStates(resourceAddress: string, publisherId: string): Promise<PublisherState[]> {
    const exact = publisherState(this.journal, publisherId);
    return exact ? [exact] : statesAtOrUnder(this.journal, resourceAddress);
  }

  /**
   * One commit: the subscription and, after an initial notification, its delivery cursor. The
   * generation the check read is not needed: a delete-all in between has removed the owner's
   * subscriptions already, so it is made in the current one, as the region's retry makes it.
   */
  async createSubscription(s: Subscription, initial?: InitialNotification): Promise<boolean> {
    const signingSecret = s.signing && (await this.box().seal(s.signing.current, s.id));
    const key = diskKeys.subscription(s.id);
    if (this.journal.get(key) !== undefined) return false;
    const item: SubscriptionItem = {
      id: s.id,
      resourceAddress: s.resourceAddress,
      endpointUri: s.endpointUri,
      owner: s.owner,
      createdAt: s.createdAt,
      ...(signingSecret ? { signingSecret } : {}),
    };
    const writes: JournalWrite[] = [{ key, value: item }];
    if (initial) {
      writes.push({
        key: diskKeys.cursor(s.id, initial.resourceAddress),
        value: initialCursor(initial, Date.now()),
      });
    }
    this.journal.commit(writes);
    return true;
  }

  async getSubscription(id: string, owner: string): Promise<Subscription | undefined> {
    const item = this.journal.get<SubscriptionItem>(diskKeys.subscription(id));
    return item?.owner === owner ? this.withSecrets(item) : undefined;
  }

  async getSubscriptions(ids: readonly string[]): Promise<ReadonlyMap<string, Subscription>> {
    const items = [...new Set(ids)].flatMap(
      (id) => this.journal.get<SubscriptionItem>(diskKeys.subscription(id)) ?? [],
    );
    const subscriptions = await Promise.all(items.map((item) => this.withSecrets(item)));
    return new Map(subscriptions.map((s) => [s.id, s]));
  }

  /** Oldest first; at an address, by id (the region's orders); undefined for a position from before a delete-all. */
  async listSubscriptions(
    owner: string,
    address: string | undefined,
    request: PageRequest,
  ): Promise<Page<Subscription> | undefined> {
    const gen = this.generation(owner);
    if (request.after && request.after.gen !== gen) return undefined;
    const mine = this.items().filter((s) => s.owner === owner);
    const sorted =
      address === undefined
        ? bySortKey(mine.map((s) => [`${s.createdAt}#${s.id}`, s]))
        : bySortKey(mine.filter((s) => s.resourceAddress === address).map((s) => [s.id, s]));
    const page = pageOf(sorted, request, { gen });
    return { items: page.items.map(toSubscription), next: page.next };
  }

  /** Every owner's subscriptions at exactly the address, by id. */
  async subscriptionsAt(
    address: string,
    { startKey, limit }: { readonly startKey?: PagePosition; readonly limit?: number | undefined },
  ): Promise<{ subscriptions: Subscription[]; next: PagePosition | undefined }> {
    const sorted = bySortKey(
      this.items()
        .filter((s) => s.resourceAddress === address)
        .map((s): [string, SubscriptionItem] => [s.id, s]),
    );
    const page = pageOf(sorted, { limit: limit ?? sorted.length, after: startKey });
    return { subscriptions: page.items.map(toSubscription), next: page.next };
  }

  /** The sealed current secret becomes the previous one as it is: its context, the id, stays. */
  async rotateSigningSecret(
    id: string,
    owner: string,
    secret: string,
    previousUntil: number,
  ): Promise<boolean> {
    const sealed = await this.box().seal(secret, id);
    const key = diskKeys.subscription(id);
    const item = this.journal.get<SubscriptionItem>(key);
    if (item?.owner !== owner) return false;
    const rotated: SubscriptionItem = {
      ...item,
      // A subscription made before secrets existed has no current one to keep.
      previousSigningSecret: item.signingSecret ?? '',
      previousSecretUntil: previousUntil,
      signingSecret: sealed,
    };
    this.journal.commit([{ key, value: rotated }]);
    return true;
  }

  /** The subscription and the dead letters of every incarnation of its id, in one commit. */
  async deleteSubscription(id: string, owner: string): Promise<boolean> {
    const key = diskKeys.subscription(id);
    if (this.journal.get<SubscriptionItem>(key)?.owner !== owner) return false;
    this.journal.commit([{ key }, ...deletesUnder(this.journal, diskKeys.deadLettersOf(id))]);
    return true;
  }

  /** One commit removes them all and moves the generation on: nothing is left to remove later. */
  async retireAllSubscriptions(owner: string): Promise<RetiredSubscriptions | undefined> {
    const mine = this.items().filter((s) => s.owner === owner);
    if (mine.length === 0) return undefined;
    const next: OwnerItem = { gen: this.generation(owner) + 1 };
    this.journal.commit([
      ...mine.flatMap((s) => [
        { key: diskKeys.subscription(s.id) },
        ...deletesUnder(this.journal, diskKeys.deadLettersOf(s.id)),
      ]),
      { key: diskKeys.owner(owner), value: next },
    ]);
    return undefined;
  }

  /** Nothing retired is ever left on the node (see retireAllSubscriptions): a job from elsewhere is done. */
  async removeRetired(): Promise<RetiredSubscriptions | undefined> {
    return undefined;
  }

  private generation(owner: string): number {
    return this.journal.get<OwnerItem>(diskKeys.owner(owner))?.gen ?? 0;
  }

  private items(): SubscriptionItem[] {
    return this.journal.scan<SubscriptionItem>(diskKeys.subscriptions).map(([, item]) => item);
  }

  /** The subscription, with its signing secrets opened when this store signs. */
  private async withSecrets(item: SubscriptionItem): Promise<Subscription> {
    const subscription = toSubscription(item);
    const signing = this.secrets && (await openSigningSecrets(this.secrets, item.id, item));
    return signing ? { ...subscription, signing } : subscription;
  }

  private box(): SecretBox {
    if (!this.secrets) throw new Error('this subscription store was built without a secret box');
    return this.secrets;
  }
}

function toSubscription(item: SubscriptionItem): Subscription {
  return {
    id: item.id,
    resourceAddress: item.resourceAddress,
    endpointUri: item.endpointUri,
    owner: item.owner,
    createdAt: item.createdAt,
  };
}
