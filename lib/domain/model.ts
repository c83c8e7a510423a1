/** The domain's values and outcomes; the ports that carry them are in `ports.ts`. */
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
  /** When the attempts to its endpoint started failing, every one since (epoch ms); absent after a 2xx. */
  readonly endpointFailingSince?: number | undefined;
  /** When its endpoint was suspended (the breaker, docs/delivery.md); absent while it is not. */
  readonly endpointSuspendedAt?: number | undefined;
}

export interface Publisher {
  readonly id: string;
  readonly resourceAddress: string;
  readonly endpointUri: string | undefined;
  readonly createdAt: string;
  /**
   * The producer principal that registered it, the only one that may publish through it or
   * delete it; absent on publishers registered before owners were kept (anyone may).
   */
  readonly owner?: string | undefined;
}

/** A publisher create: done, there is one at the address already, or its owner's quota is reached. */
export type CreatePublisherOutcome = 'created' | 'exists' | 'over-quota';

/** A publisher delete: done, nothing to delete, or refused because another principal owns it. */
export type DeletePublisherOutcome = 'deleted' | 'absent' | 'not-owner';

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
  | { readonly kind: 'wrong-source'; readonly publisherAddress: string }
  /** A `data.values[].ResourceAddress` lies outside the publisher's address. */
  | { readonly kind: 'value-outside'; readonly publisherAddress: string }
  /** The publisher belongs to another producer principal. */
  | { readonly kind: 'not-owner'; readonly publisherAddress: string }
  /** The publisher is over its event rate; its next event conforms in `retryAfterMs`. */
  | { readonly kind: 'over-rate'; readonly publisherAddress: string; readonly retryAfterMs: number };

/**
 * A publisher's event rate as a generic cell rate (GCRA): one event every `intervalMs` on
 * average, up to `burst` at once (docs/security.md).
 */
export interface EventRate {
  readonly intervalMs: number;
  readonly burst: number;
}

export interface EventToAccept {
  readonly publisherId: string;
  readonly event: NotificationEvent;
  readonly timeKey: string;
  readonly acceptedAt: string;
  /**
   * The addresses the publisher may have: at or above every `data.values[].ResourceAddress`, each
   * followed by the source (lib/domain/event.ts `possiblePublisherAddresses`); none: no publisher
   * takes the event.
   */
  readonly publisherAddresses: readonly string[];
  /** The publishing principal: the publisher must be its own (or have no owner). */
  readonly producer?: string | undefined;
  /** The publisher's rate, checked and kept by the same write as the state; none: no rate. */
  readonly rate?: EventRate | undefined;
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
  /** How many live subscriptions the owner has (the subscriptions-per-owner quota). */
  readonly ownerCount: number;
}

/** The event a new subscription received as its initial notification (the sanity check). */
export interface InitialNotification {
  readonly resourceAddress: string;
  readonly event: NotificationEvent;
  readonly timeKey: string;
}

/**
 * Where a page of a list or a paged read ended, as the store knows it (a table key): opaque outside
 * the store, sealed in a list's cursor or carried in a queue message as JSON.
 */
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
  /**
   * One per notification message (the same on each of its receives and retries, another for a
   * fan-out's rerun): only the holder of the lease may complete or release it, and a holder may
   * take its own lease again (docs/delivery.md, "Ordering cursors").
   */
  readonly leaseOwner: string;
  /** Epoch milliseconds of the attempt and of the end of its lease. */
  readonly now: number;
  readonly leaseUntil: number;
  /** Unix seconds after which the cursor may be forgotten; refreshed by every write. */
  readonly expiresAt: number;
  /**
   * What the cursor shows as delivered once the lease is taken: the lease commits ahead, and a 2xx
   * writes nothing (a failed attempt's release puts back what it replaced).
   */
  readonly delivered: DeliveredEvent;
  /**
   * The owner of a lease on this cursor whose attempt, in this process, got its 2xx: the attempt
   * takes it over while it is live rather than waiting for its end.
   */
  readonly finishedLease?: string;
}

export type LeaseOutcome =
  | { readonly kind: 'acquired' }
  /** The subscription already received this event or a newer one for the address. */
  | { readonly kind: 'superseded' }
  /** Another attempt for the same subscription and address is in flight until `leaseUntil`. */
  | { readonly kind: 'leased'; readonly leaseUntil: number };

/** The newest event delivered for one address, as its delivery cursor keeps it. */
export interface DeliveredEvent {
  readonly source: string;
  readonly id: string;
  readonly time: string;
  /** Epoch ms of the attempt that delivered it (its lease, taken before the POST). */
  readonly deliveredAt: number;
  /** From the event's acceptance to the attempt that delivered it; absent for an initial notification. */
  readonly latencyMs?: number;
}

/** The last failed attempt for one address, as its delivery cursor keeps it. */
export interface AttemptFailure {
  /** Epoch ms of the failure. */
  readonly at: number;
  /** Worded as a dead letter's reason words the failure. */
  readonly reason: string;
  /** Attempts of that notification so far, the failed one included. */
  readonly attempts: number;
}

/**
 * A delivery attempt that ended in a 2xx and frees its lease at once (another attempt of this
 * process waits for it): its cursor keeps what was delivered.
 */
export type CompletedAttempt = DeliveryAttempt;

/** What a subscription's consumer received for one address (GET /subscriptions/{id}/deliveries). */
export interface DeliveryStatus {
  readonly resourceAddress: string;
  readonly delivered?: DeliveredEvent;
  readonly lastFailure?: AttemptFailure;
  /** Since when the subscription's endpoint is suspended, if it is (epoch ms). */
  readonly endpointSuspendedAt?: number;
}

/** A notification given up on, kept with its subscription for 14 days (and sent to the dead-letter queue). */
export interface DeadLetterRecord {
  readonly subscriptionId: string;
  /** Which incarnation of the subscription (a subscription made again has the same id). */
  readonly subscriptionCreatedAt: string;
  readonly resourceAddress: string;
  readonly publisherId: string;
  readonly event: NotificationEvent;
  readonly acceptedAt: string;
  readonly reason: string;
  readonly attempts: number;
  readonly deadLetteredAt: string;
}
