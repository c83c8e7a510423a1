/**
 * The rules of the delivery cursors (DeliveryCursorStore), pure: the DynamoDB store applies them as
 * its conditions and reads refusals with them; the node's store applies them as they are.
 */
import type { NotificationEvent } from './event';
import type {
  AttemptFailure,
  CompletedAttempt,
  DeliveredEvent,
  DeliveryAttempt,
  DeliveryStatus,
  InitialNotification,
  LeaseOutcome,
} from './model';

/** A new subscription's delivery cursor outlives the longest retry window by a day. */
const INITIAL_CURSOR_TTL_SECONDS = 15 * 24 * 3600;

/** One cursor as stored: the newest event delivered, the lease in flight, and what the consumer saw last. */
export interface DeliveryCursor {
  readonly deliveredTimeKey?: string;
  /** `eventKey` of the newest event delivered. */
  readonly deliveredEvent?: string;
  readonly leaseOwner?: string;
  /** Epoch ms. */
  readonly leaseUntil?: number;
  readonly lastDelivered?: DeliveredEvent;
  readonly lastFailure?: AttemptFailure;
  /** Unix seconds after which the cursor may be forgotten. */
  readonly expiresAt?: number;
}

/** What tells two events of the same time apart: `<source>#<id>`. */
export function eventKey(event: Pick<NotificationEvent, 'source' | 'id'>): string {
  return `${event.source}#${event.id}`;
}

/**
 * True when the cursor has delivered this event, or one newer, already (never send it then): how a
 * refusal of a lease is told apart from a held lease, and how a redrive reports a dead letter
 * dropped. test/store/lease-rule.test.ts holds the DynamoDB store's condition to agree.
 */
export function supersedes(
  cursor: { readonly deliveredTimeKey?: unknown; readonly deliveredEvent?: unknown },
  timeKey: string,
  eventKey: string,
): boolean {
  const delivered = typeof cursor.deliveredTimeKey === 'string' ? cursor.deliveredTimeKey : '';
  return delivered > timeKey || (delivered === timeKey && cursor.deliveredEvent === eventKey);
}

/**
 * Why the attempt may not take the cursor's lease (superseded before leased), or undefined when
 * it may: its event is not newer than the one delivered, or another attempt's lease has not run
 * out (it is free once `leaseUntil` is before `now`).
 */
export function leaseRefusal(
  cursor: {
    readonly deliveredTimeKey?: unknown;
    readonly deliveredEvent?: unknown;
    readonly leaseUntil?: unknown;
  },
  a: Pick<DeliveryAttempt, 'timeKey' | 'eventKey' | 'now'>,
): LeaseOutcome | undefined {
  if (supersedes(cursor, a.timeKey, a.eventKey)) return { kind: 'superseded' };
  const leaseUntil = cursor.leaseUntil;
  if (typeof leaseUntil === 'number' && leaseUntil >= a.now) return { kind: 'leased', leaseUntil };
  return undefined;
}

/**
 * Whether a completion whose lease ran out may still record its event: only forward, to a later
 * time than the one delivered (another attempt may hold the lease by then).
 */
export function movesForward(cursor: DeliveryCursor | undefined, timeKey: string): boolean {
  return cursor?.deliveredTimeKey === undefined || cursor.deliveredTimeKey < timeKey;
}

/** What a completed attempt writes to its cursor (besides freeing the lease it holds). */
export function deliveredCursor(a: CompletedAttempt): DeliveryCursor {
  return {
    deliveredTimeKey: a.timeKey,
    deliveredEvent: a.eventKey,
    expiresAt: a.expiresAt,
    lastDelivered: a.delivered,
  };
}

/**
 * A new subscription's cursor after its initial notification, as if that event had been
 * delivered: no delivery under way sends it that event again, or an older one. The initial
 * notification has no latency from an acceptance.
 */
export function initialCursor(initial: InitialNotification, nowMs: number): DeliveryCursor {
  return {
    deliveredTimeKey: initial.timeKey,
    deliveredEvent: eventKey(initial.event),
    lastDelivered: {
      source: initial.event.source,
      id: initial.event.id,
      time: initial.event.time,
      deliveredAt: nowMs,
    },
    expiresAt: Math.ceil(nowMs / 1000) + INITIAL_CURSOR_TTL_SECONDS,
  };
}

/**
 * What the consumer saw at the cursor's address since `since` (epoch ms: the subscription's
 * creation, for a subscription made again has the id of the one deleted), or undefined when
 * nothing was written since.
 */
export function deliveryStatusSince(
  resourceAddress: string,
  cursor: { readonly lastDelivered?: unknown; readonly lastFailure?: unknown },
  since: number,
): DeliveryStatus | undefined {
  const d = cursor.lastDelivered as Record<string, unknown> | undefined;
  const f = cursor.lastFailure as Record<string, unknown> | undefined;
  const delivered: DeliveredEvent | undefined =
    d && Number(d.deliveredAt) >= since
      ? {
          source: String(d.source),
          id: String(d.id),
          time: String(d.time),
          deliveredAt: Number(d.deliveredAt),
          ...(d.latencyMs === undefined ? {} : { latencyMs: Number(d.latencyMs) }),
        }
      : undefined;
  const lastFailure: AttemptFailure | undefined =
    f && Number(f.at) >= since
      ? { at: Number(f.at), reason: String(f.reason), attempts: Number(f.attempts) }
      : undefined;
  if (!delivered && !lastFailure) return undefined;
  return {
    resourceAddress,
    ...(delivered ? { delivered } : {}),
    ...(lastFailure ? { lastFailure } : {}),
  };
}
