import type { NotificationEvent } from './event';
import type { SigningSecrets } from './signing-secret';

export interface Subscription {
  readonly id: string;
  readonly resourceAddress: string;
  readonly endpointUri: string;
  /** The principal that created it; `anonymous` when consumer authentication is off. */
  readonly owner: string;
  readonly createdAt: string;
  /**
   * What its notifications are signed with. Present when read for signing (a store built with a
   * secret box); lists and the other reads leave it out, so they never decrypt anything.
   */
  readonly signing?: SigningSecrets;
}

export interface Publisher {
  readonly id: string;
  readonly resourceAddress: string;
  readonly endpointUri: string | undefined;
  readonly createdAt: string;
}

/** What the service knows of one publisher address: who publishes there and its latest event. */
export interface PublisherState {
  readonly publisherId: string;
  readonly resourceAddress: string;
  readonly event: NotificationEvent | undefined;
  readonly timeKey: string | undefined;
  readonly acceptedAt: string | undefined;
}

export type AcceptOutcome =
  | { readonly kind: 'accepted' | 'duplicate' | 'stale' | 'unknown-publisher' }
  /** The event's `source` is not a resource part of the publisher's address. */
  | { readonly kind: 'wrong-source'; readonly publisherAddress: string };

export interface EventToAccept {
  readonly publisherId: string;
  readonly event: NotificationEvent;
  readonly timeKey: string;
  readonly acceptedAt: string;
  /** Unix seconds after which the deduplication record may be forgotten. */
  readonly dedupExpiresAt: number;
}

export interface SubscribeCheckKeys {
  readonly subscriptionId: string;
  readonly owner: string;
  readonly resourceAddress: string;
  /** The id a publisher at exactly `resourceAddress` has. */
  readonly publisherId: string;
}

export interface SubscribeCheck {
  readonly exists: boolean;
  readonly states: readonly PublisherState[];
  /** The owner's generation as the check read it: handed back to the create, which then need not read it. */
  readonly generation: number;
}

/** The event a new subscription received as its initial notification (the sanity check). */
export interface InitialNotification {
  readonly resourceAddress: string;
  readonly event: NotificationEvent;
  readonly timeKey: string;
}

/** Where a page of a list ended, as the store knows it (a table key): opaque outside the store. */
export type PagePosition = Readonly<Record<string, unknown>>;

export interface PageRequest {
  readonly limit: number;
  /** Continue after this position; absent for the first page. */
  readonly after?: PagePosition | undefined;
}

export interface Page<T> {
  readonly items: readonly T[];
  /** Present when more may follow. */
  readonly next?: PagePosition | undefined;
}

/**
 * The subscriptions delete-all retired (the owner's generations `fromGeneration` up to, not
 * including, `toGeneration`): no longer seen anywhere, their items still to be removed.
 */
export interface RetiredSubscriptions {
  readonly owner: string;
  readonly fromGeneration: number;
  readonly toGeneration: number;
  /** Where the removal stopped within `fromGeneration`, when it is resumed. */
  readonly after?: PagePosition | undefined;
}

/** The delivery progress of one subscription for one publisher address. */
export interface DeliveryCursorKey {
  readonly subscriptionId: string;
  readonly resourceAddress: string;
}

/** One delivery attempt of one event, as the ordering cursor sees it. */
export interface DeliveryAttempt extends DeliveryCursorKey {
  /** The event's `time` as a key that sorts in time order. */
  readonly timeKey: string;
  /** Tells two events with the same time apart: `<source>#<id>`. */
  readonly eventKey: string;
  /** Unique per attempt: only the holder of the lease may complete or release it. */
  readonly leaseOwner: string;
  /** Epoch milliseconds of the attempt and of the end of its lease. */
  readonly now: number;
  readonly leaseUntil: number;
  /** Unix seconds after which the cursor may be forgotten; refreshed by every write. */
  readonly expiresAt: number;
}

/** Where a paged read goes on: opaque outside the store, carried in queue messages as JSON. */
export type PageKey = Readonly<Record<string, unknown>>;

export type LeaseOutcome =
  | { readonly kind: 'acquired' }
  /** The subscription already received this event or a newer one for the address. */
  | { readonly kind: 'superseded' }
  /** Another attempt for the same subscription and address is in flight until `leaseUntil`. */
  | { readonly kind: 'leased'; readonly leaseUntil: number };

/**
 * The persistence ports of the domain, one per part of it, so that each function's bundle holds
 * only the adapter it uses. `lib/store/` has their one adapter each, on one DynamoDB table.
 */
export interface SubscriptionStore {
  /**
   * What a subscribe must know before it writes: whether the subscription exists (409), and the
   * current states of the publishers it covers (none: 404): the publisher at exactly the address
   * if there is one, otherwise every publisher under it.
   */
  subscribeCheck(keys: SubscribeCheckKeys): Promise<SubscribeCheck>;
  /**
   * Creates the subscription unless it exists (false); with `initialNotification`, also records in
   * the same transaction that it received that event, so no delivery still under way sends it
   * that event again or an older one.
   */
  createSubscription(
    subscription: Subscription,
    initialNotification?: InitialNotification,
    generation?: number,
  ): Promise<boolean>;
  /** The subscription, if `owner` owns it and delete-all has not retired it (one read). */
  getSubscription(id: string, owner: string): Promise<Subscription | undefined>;
  /**
   * The live subscriptions among `ids`, by id: one consistent read of the subscriptions, one of
   * their owners' generations (a subscription delete-all retired is absent, as a deleted one is).
   */
  getSubscriptions(ids: readonly string[]): Promise<ReadonlyMap<string, Subscription>>;
  /** Deletes the subscription if it exists and `owner` owns it; false when there was none to delete. */
  deleteSubscription(id: string, owner: string): Promise<boolean>;
}

export interface SubscriptionLists {
  /** One page of the owner's subscriptions (at exactly `resourceAddress`); undefined when `after` is from a list delete-all retired. */
  listSubscriptions(
    owner: string,
    resourceAddress: string | undefined,
    page: PageRequest,
  ): Promise<Page<Subscription> | undefined>;
}

/** Delete-all's part of the store, apart so that the other subscription functions do not bundle it. */
export interface RetiredSubscriptionStore {
  /**
   * Retires every subscription of the owner in one write (the counters with them) and says what
   * is left to remove, if anything.
   */
  retireAllSubscriptions(owner: string): Promise<RetiredSubscriptions | undefined>;
  /**
   * Removes retired items page by page until done (undefined) or `stop()` says to; then returns
   * where to resume. Idempotent, and never touches a subscription made again meanwhile.
   */
  removeRetired(job: RetiredSubscriptions, stop: () => boolean): Promise<RetiredSubscriptions | undefined>;
}

/** Rotation of a subscription's signing secret. */
export interface SigningSecretStore {
  /**
   * Makes `secret` the current signing secret, keeping the one it replaces in force until
   * `previousUntil` (epoch ms); false when no subscription `id` is owned by `owner`.
   */
  rotateSigningSecret(id: string, owner: string, secret: string, previousUntil: number): Promise<boolean>;
}

export interface PublisherStore {
  /** False when the publisher exists already (ids follow from addresses: same address, same id). */
  createPublisher(publisher: Publisher): Promise<boolean>;
  getPublisher(id: string): Promise<Publisher | undefined>;
  /** One page of the publishers, or of those at or under `resourceAddress` (ordered by address). */
  listPublishers(resourceAddress: string | undefined, page: PageRequest): Promise<Page<Publisher>>;
  /** Deletes the publisher and its current state; false when there was none to delete. */
  deletePublisher(id: string): Promise<boolean>;
  getState(publisherId: string): Promise<PublisherState | undefined>;
  /**
   * Makes the event the publisher's current state, atomically with remembering its (`source`,
   * `id`), if the publisher exists, the source fits its address, the event is new and no older
   * than the current state. The address need not be known to call this.
   */
  acceptEvent(event: EventToAccept): Promise<AcceptOutcome>;
  /** Forgets an accepted (`source`, `id`), so that the producer's repeat is accepted again. */
  forgetAcceptedEvent(publisherId: string, source: string, id: string): Promise<void>;
}

export interface DeliveryStore extends Pick<SubscriptionStore, 'getSubscriptions' | 'deleteSubscription'> {
  /**
   * One page of the subscriptions to exactly `resourceAddress` (fan-out reads one address and
   * each of its ancestors), from `startKey`; `next` is where the following page starts.
   */
  subscriptionsAt(
    resourceAddress: string,
    options: { readonly startKey?: PageKey; readonly limit?: number | undefined },
  ): Promise<{ readonly subscriptions: Subscription[]; readonly next: PageKey | undefined }>;
  /** `acquireDeliveryLease` for many attempts at once; each succeeds or fails on its own. */
  acquireDeliveryLeases(attempts: readonly DeliveryAttempt[]): Promise<PromiseSettledResult<LeaseOutcome>[]>;
  /** `completeDelivery` for many attempts at once; each succeeds or fails on its own. */
  completeDeliveries(attempts: readonly DeliveryAttempt[]): Promise<PromiseSettledResult<void>[]>;
  /**
   * Takes the lease of the (subscription, address) cursor for one attempt, unless the event is not
   * newer than the one delivered last or another attempt holds the lease.
   */
  acquireDeliveryLease(attempt: DeliveryAttempt): Promise<LeaseOutcome>;
  /** Records the attempt's event as the newest delivered and frees the lease. */
  completeDelivery(attempt: DeliveryAttempt): Promise<void>;
  /** Frees the lease without moving the cursor (the attempt failed). */
  releaseDeliveryLease(attempt: DeliveryAttempt): Promise<void>;
}

export interface StoreStatus {
  counts(): Promise<{ subscriptions: number; publishers: number }>;
  ping(): Promise<void>;
}
