import type { NotificationEvent } from './event';

export interface Subscription {
  readonly id: string;
  readonly resourceAddress: string;
  readonly endpointUri: string;
  /** The principal that created it; `anonymous` when consumer authentication is off. */
  readonly owner: string;
  readonly createdAt: string;
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

export type CreateOutcome =
  | { readonly created: true }
  | { readonly created: false; readonly existingId: string };

export type AcceptOutcome = 'accepted' | 'duplicate' | 'stale' | 'unknown-publisher';

export interface EventToAccept {
  readonly publisherId: string;
  readonly resourceAddress: string;
  readonly event: NotificationEvent;
  readonly timeKey: string;
  readonly acceptedAt: string;
  /** Unix seconds after which the deduplication record may be forgotten. */
  readonly dedupExpiresAt: number;
}

/** The persistence port of the domain. `lib/store/dynamo-store.ts` is its one adapter. */
export interface NotificationStore {
  findSubscriptionId(
    owner: string,
    resourceAddress: string,
    endpointUri: string,
  ): Promise<string | undefined>;
  createSubscription(subscription: Subscription): Promise<CreateOutcome>;
  getSubscription(id: string): Promise<Subscription | undefined>;
  listSubscriptions(owner: string, resourceAddress?: string): Promise<Subscription[]>;
  /** Deletes the subscription if `owner` owns it; returns what was deleted. */
  deleteSubscription(id: string, owner: string): Promise<Subscription | undefined>;
  deleteAllSubscriptions(owner: string): Promise<number>;
  /** Pages of the subscriptions whose address is `resourceAddress` or one of its ancestors. */
  subscriptionsCovering(resourceAddress: string): AsyncIterable<Subscription[]>;

  createPublisher(publisher: Publisher): Promise<CreateOutcome>;
  getPublisher(id: string): Promise<Publisher | undefined>;
  listPublishers(): Promise<Publisher[]>;
  deletePublisher(id: string): Promise<Publisher | undefined>;
  /** Current states of every publisher at or under `resourceAddress`. */
  statesUnder(resourceAddress: string): Promise<PublisherState[]>;
  getState(resourceAddress: string): Promise<PublisherState | undefined>;
  acceptEvent(event: EventToAccept): Promise<AcceptOutcome>;

  counts(): Promise<{ subscriptions: number; publishers: number }>;
  ping(): Promise<void>;
}
