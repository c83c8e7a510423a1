import type { NotificationEvent } from './event';
import type { RetiredSubscriptions, Subscription } from './model';

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
  /** How long the initial notification may take to be answered (the sanity-check time-out). */
  readonly timeoutMs: number;
  /** Throws a BadRequestError when the delivery network policy forbids the endpoint. */
  assertAllowed(endpoint: URL): Promise<void>;
  /** POSTs the initial notification, signed with `secrets`; resolves to undefined on a 2xx, or to why it failed. */
  sendInitial(
    endpointUri: string,
    event: NotificationEvent,
    secrets: readonly string[],
  ): Promise<string | undefined>;
}

/** Where delete-all hands the removal of what it retired: a queued job, run in the background. */
export interface RetiredSubscriptionRemoval {
  schedule(job: RetiredSubscriptions): Promise<void>;
}
