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

/**
 * One cursor as stored: the newest event delivered, the lease in flight, and what the consumer saw
 * last. The lease commits ahead (docs/delivery.md, "Ordering cursors"): taking it moves the
 * cursor to the attempt's event and keeps what it replaced (`replaced…`), which a failed attempt's
 * release puts back; a 2xx writes nothing and the lease runs out by itself. `''` and null stand
 * for nothing delivered (DynamoDB's update expressions cannot write "absent").
 */
export interface DeliveryCursor {
  readonly deliveredTimeKey?: string;
  /** `eventKey` of the newest event delivered. */
  readonly deliveredEvent?: string;
  readonly leaseOwner?: string;
  /** Epoch ms. */
  readonly leaseUntil?: number;
  readonly lastDelivered?: DeliveredEvent | null;
  readonly lastFailure?: AttemptFailure;
  /** What the lease replaced, while it is held or left to run out. */
  readonly replacedTimeKey?: string;
  readonly replacedEvent?: string;
  readonly replacedDelivered?: DeliveredEvent | null;
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
 * it may. A lease that ran out counts its event as delivered (its 2xx wrote nothing); a live one
 * may still fail and put back what it replaced, so an attempt meanwhile is judged against that:
 * superseded when that is as new or newer, or when the lease is for this very event (its holder's
 * message carries it), else leased. The lease's own holder (`leaseOwner`: the same message again,
 * after a crash mid-POST or a lost answer) may always take it again, and a live lease the attempt
 * knows ended in a 2xx (`finishedLease`) counts as run out.
 * test/store/lease-rule.test.ts holds the DynamoDB store's condition to agree.
 */
export function leaseRefusal(
  cursor: {
    readonly deliveredTimeKey?: unknown;
    readonly deliveredEvent?: unknown;
    readonly leaseOwner?: unknown;
    readonly leaseUntil?: unknown;
    readonly replacedTimeKey?: unknown;
    readonly replacedEvent?: unknown;
  },
  a: Pick<DeliveryAttempt, 'timeKey' | 'eventKey' | 'now' | 'leaseOwner' | 'finishedLease'>,
): LeaseOutcome | undefined {
  if (cursor.leaseOwner === a.leaseOwner) return undefined;
  const leaseUntil = cursor.leaseUntil;
  const finished = a.finishedLease !== undefined && cursor.leaseOwner === a.finishedLease;
  if (typeof leaseUntil !== 'number' || leaseUntil < a.now || finished) {
    return supersedes(cursor, a.timeKey, a.eventKey) ? { kind: 'superseded' } : undefined;
  }
  // A lease taken before leases committed ahead replaced nothing: its cursor is what was delivered.
  const before =
    typeof cursor.replacedTimeKey === 'string'
      ? { deliveredTimeKey: cursor.replacedTimeKey, deliveredEvent: cursor.replacedEvent }
      : cursor;
  const leasedForIt = cursor.deliveredTimeKey === a.timeKey && cursor.deliveredEvent === a.eventKey;
  if (leasedForIt || supersedes(before, a.timeKey, a.eventKey)) return { kind: 'superseded' };
  return { kind: 'leased', leaseUntil };
}

/**
 * The cursor once `a` took its lease (leaseRefusal said it may): moved to its event, keeping what
 * that replaced; or, for its own holder taking it again, the same position with a new lease.
 */
export function leasedCursor(cursor: DeliveryCursor | undefined, a: DeliveryAttempt): DeliveryCursor {
  const lease = { leaseUntil: a.leaseUntil, expiresAt: a.expiresAt, lastDelivered: a.delivered };
  if (cursor !== undefined && cursor.leaseOwner === a.leaseOwner) return { ...cursor, ...lease };
  return {
    ...cursor,
    ...lease,
    replacedTimeKey: cursor?.deliveredTimeKey ?? '',
    replacedEvent: cursor?.deliveredEvent ?? '',
    replacedDelivered: cursor?.lastDelivered ?? null,
    deliveredTimeKey: a.timeKey,
    deliveredEvent: a.eventKey,
    leaseOwner: a.leaseOwner,
  };
}

/**
 * The cursor once its holder gave the lease up without delivering (a failed POST, a 410, an
 * attempt that sent nothing): back at what the lease replaced, with the `failure` if there was one.
 */
export function releasedCursor(cursor: DeliveryCursor, failure?: AttemptFailure): DeliveryCursor {
  const free = withoutLease(cursor);
  const back =
    cursor.replacedTimeKey === undefined
      ? {}
      : {
          deliveredTimeKey: cursor.replacedTimeKey,
          deliveredEvent: cursor.replacedEvent ?? '',
          lastDelivered: cursor.replacedDelivered ?? null,
        };
  return { ...free, ...back, ...(failure ? { lastFailure: failure } : {}) };
}

/** The cursor without its lease and what the lease replaced. */
export function withoutLease(cursor: DeliveryCursor): DeliveryCursor {
  const {
    leaseOwner: _owner,
    leaseUntil: _until,
    replacedTimeKey: _timeKey,
    replacedEvent: _event,
    replacedDelivered: _delivered,
    ...rest
  } = cursor;
  return rest;
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
