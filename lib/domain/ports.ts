/**
 * Every port of the domain in one place: the store's persistence ports and the seams to delivery,
 * the consumer endpoints and background jobs. `lib/domain/model.ts` holds the values they carry.
 */
import type { NotificationEvent } from './event';
import type {
  AcceptOutcome,
  AttemptFailure,
  CompletedAttempt,
  CreatePublisherOutcome,
  DeadLetterRecord,
  DeletePublisherOutcome,
  DeliveryAttempt,
  DeliveryStatus,
  EventToAccept,
  InitialNotification,
  LeaseOutcome,
  Page,
  PagePosition,
  PageRequest,
  Publisher,
  PublisherState,
  RetiredSubscriptions,
  SubscribeCheck,
  SubscribeCheckKeys,
  Subscription,
} from './model';

/** An event the service accepted, as handed to delivery. */
export interface AcceptedEvent {
  readonly publisherId: string;
  readonly resourceAddress: string;
  readonly event: NotificationEvent;
  /** ISO time of acceptance, the start of DeliveryLatency. */
  readonly acceptedAt: string;
}

/** Where accepted events go to reach their subscribers; the seam between the API and delivery. */
export interface DeliveryPort {
  /** Delivers the event to every subscription that covers its address. */
  eventAccepted(accepted: AcceptedEvent): Promise<void>;
  /** Delivers current states to one new subscription (those the initial notification did not carry). */
  currentStatesFor(subscription: Subscription, states: readonly AcceptedEvent[]): Promise<void>;
}

/** The consumer endpoints as the subscribe path sees them. */
export interface EndpointGate {
  /**
   * How long one subscribe's endpoint checks may take together (the sanity-check time-out): the
   * name's lookup, then the initial notification's answer or the connection. Each method is given
   * a `deadline` (ms since the epoch) in that one budget, so that a slow lookup leaves less for the
   * POST rather than adding to it: the subscribe answers within the budget plus its own work.
   */
  readonly timeoutMs: number;
  /**
   * Throws a BadRequestError when the delivery network policy forbids the endpoint, or when its
   * name is not resolved by `deadline`.
   */
  assertAllowed(endpoint: URL, deadline: number): Promise<void>;
  /** POSTs the initial notification, signed with `secrets`; resolves to undefined on a 2xx, or to why it failed. */
  sendInitial(
    endpointUri: string,
    event: NotificationEvent,
    secrets: readonly string[],
    deadline: number,
  ): Promise<string | undefined>;
  /**
   * Connects to the endpoint as a delivery would (and completes TLS for https) without sending
   * anything: the check when there is no current state to send. Undefined when it connected.
   */
  probe(endpointUri: string, deadline: number): Promise<string | undefined>;
}

/** Where delete-all hands the removal of what it retired: a queued job, run in the background. */
export interface RetiredSubscriptionRemoval {
  schedule(job: RetiredSubscriptions): Promise<void>;
}

/**
 * The persistence ports of the domain, one per aggregate, each shaped by what the domain asks of
 * it. `lib/store/` has one adapter for each, on one DynamoDB table whose layout only it knows.
 */
export interface SubscriptionStore {
  /**
   * What a subscribe must know before it writes: whether the subscription exists (409), and the
   * current states of the publishers it covers (none: 404): the publisher at exactly the address
   * if there is one, otherwise every publisher under it.
   */
  subscribeCheck(keys: SubscribeCheckKeys): Promise<SubscribeCheck>;
  /**
   * The current states of the publishers a subscription to `resourceAddress` covers, as
   * `subscribeCheck` finds them (`publisherId`: the id a publisher at exactly the address has).
   */
  coveredStates(resourceAddress: string, publisherId: string): Promise<PublisherState[]>;
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
  /** One page of the owner's subscriptions (at exactly `resourceAddress`); undefined when `after` is from a list delete-all retired. */
  listSubscriptions(
    owner: string,
    resourceAddress: string | undefined,
    page: PageRequest,
  ): Promise<Page<Subscription> | undefined>;
  /**
   * One page of the subscriptions to exactly `resourceAddress` (fan-out reads one address and
   * each of its ancestors), from `startKey`; `next` is where the following page starts.
   */
  subscriptionsAt(
    resourceAddress: string,
    options: { readonly startKey?: PagePosition; readonly limit?: number | undefined },
  ): Promise<{ readonly subscriptions: Subscription[]; readonly next: PagePosition | undefined }>;
  /**
   * Makes `secret` the current signing secret, keeping the one it replaces in force until
   * `previousUntil` (epoch ms); false when no subscription `id` is owned by `owner`.
   */
  rotateSigningSecret(id: string, owner: string, secret: string, previousUntil: number): Promise<boolean>;
  /** Deletes the subscription (its dead letters with it) if it exists and `owner` owns it; false when there was none to delete. */
  deleteSubscription(id: string, owner: string): Promise<boolean>;
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

export interface PublisherStore {
  /**
   * Creates the publisher unless it exists (ids follow from addresses: same address, same id).
   * With `quota`, counts it against its owner, refused (`over-quota`) when the owner already has
   * that many; without, its owner's count is not kept (the local stage's unnamed producer).
   */
  createPublisher(publisher: Publisher, quota?: number): Promise<CreatePublisherOutcome>;
  getPublisher(id: string): Promise<Publisher | undefined>;
  /** One page of the publishers, or of those at or under `resourceAddress` (ordered by address). */
  listPublishers(resourceAddress: string | undefined, page: PageRequest): Promise<Page<Publisher>>;
  /**
   * Deletes the publisher and its current state, unless it belongs to a principal other than
   * `owner` (`not-owner`); `absent` when there was none to delete. `counted`: the owner's count
   * is kept (it was created with a quota), and goes down by one.
   */
  deletePublisher(id: string, owner: string, counted: boolean): Promise<DeletePublisherOutcome>;
  getState(publisherId: string): Promise<PublisherState | undefined>;
  /**
   * Makes the event the publisher's current state, atomically with remembering its (`source`,
   * `id`), if the publisher exists, the source fits its address, the event is new and no older
   * than the current state, `producer` (when given) owns it, and the event is within the
   * publisher's `rate` (when given; kept by the same write). The address need not be known to call this.
   */
  acceptEvent(event: EventToAccept): Promise<AcceptOutcome>;
  /** Forgets an accepted (`source`, `id`), so that the producer's repeat is accepted again. */
  forgetAcceptedEvent(publisherId: string, source: string, id: string): Promise<void>;
}

/**
 * The ordering cursors of delivery, one per (subscription, publisher address): the newest event
 * delivered, the lease of the attempt in flight, and what the consumer saw last.
 */
export interface DeliveryCursorStore {
  /**
   * Takes the lease of each attempt's (subscription, address) cursor, unless its event is not
   * newer than the one delivered last (superseded) or another attempt holds the lease (leased);
   * each attempt succeeds or fails on its own. The lease moves the cursor to the attempt's event
   * (it commits ahead: a 2xx writes nothing more) and keeps what it replaced (the rules:
   * lib/domain/delivery-cursor.ts).
   */
  acquireDeliveryLeases(attempts: readonly DeliveryAttempt[]): Promise<PromiseSettledResult<LeaseOutcome>[]>;
  /**
   * Records each attempt's event as the newest delivered (with when and how fast, for GET
   * /subscriptions/{id}/deliveries) and frees its lease before its end, for an attempt that waits
   * for it; each succeeds or fails on its own.
   */
  completeDeliveries(attempts: readonly CompletedAttempt[]): Promise<PromiseSettledResult<void>[]>;
  /**
   * Frees the lease of an attempt that did not deliver, putting back what the lease replaced and
   * recording the `failure` if the attempt failed.
   */
  releaseDeliveryLease(attempt: DeliveryAttempt, failure?: AttemptFailure): Promise<void>;
  /** One page of what was delivered, or failed, per address, in this incarnation of the subscription. */
  listDeliveries(subscription: Subscription, page: PageRequest): Promise<Page<DeliveryStatus>>;
  /** Those of `letters` whose event, or a newer one for the address, has been delivered since. */
  deliveredSince(
    subscriptionId: string,
    letters: readonly DeadLetterRecord[],
  ): Promise<Set<DeadLetterRecord>>;
}

/** The notifications given up on, kept with their subscription for 14 days to be read and redriven. */
export interface DeadLetterStore {
  /** Keeps a dead letter with its subscription (one write; they expire after 14 days). */
  recordDeadLetter(letter: DeadLetterRecord): Promise<void>;
  /** One page of the subscription's dead letters, oldest event first. */
  listDeadLetters(subscription: Subscription, page: PageRequest): Promise<Page<DeadLetterRecord>>;
  removeDeadLetters(letters: readonly DeadLetterRecord[]): Promise<void>;
}

/**
 * The breaker's state of each subscription's endpoint (docs/delivery.md): since when every attempt
 * has failed, and since when it is suspended; a subscription read carries both.
 */
export interface EndpointBreakerStore {
  /** Notes that an attempt to the subscription's endpoint failed at `at`, unless one is noted already. */
  recordEndpointFailure(id: string, at: number): Promise<void>;
  /** Forgets the failures: an attempt succeeded. */
  clearEndpointFailure(id: string): Promise<void>;
  /** Suspends the endpoint from `at`; false when it was suspended already. */
  suspendEndpoint(id: string, at: number): Promise<boolean>;
  /** Lifts the suspension, and the failures with it. */
  resumeEndpoint(id: string): Promise<void>;
}

/** The address prefixes an operator granted each producer principal (`npm run grants`). */
export interface ProducerGrantStore {
  /** The prefixes granted to `principal` (one read). */
  grantsOf(principal: string): Promise<string[]>;
  addGrant(principal: string, prefix: string): Promise<void>;
  /** False when the principal held no such grant. */
  removeGrant(principal: string, prefix: string): Promise<boolean>;
  /** Every principal's grants. */
  listGrants(): Promise<{ principal: string; prefixes: string[] }[]>;
}

/** The exact counts of subscriptions and publishers, kept as each is made or removed. */
export interface CounterStore {
  counts(): Promise<{ subscriptions: number; publishers: number }>;
}

/** Whether the store answers (GET /health). */
export interface StoreHealth {
  ping(): Promise<void>;
}
