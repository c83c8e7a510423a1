import { createHash } from 'node:crypto';
import type { Backoff } from '../backoff';
import { eventKey } from '../domain/delivery-cursor';
import { parseTime } from '../domain/event';
import type {
  AttemptFailure,
  CompletedAttempt,
  DeliveryAttempt,
  DeliveryCursorKey,
  LeaseOutcome,
  Subscription,
} from '../domain/model';
import type { DeliveryCursorStore, EndpointBreakerStore, SubscriptionStore } from '../domain/ports';
import { secretsInForce } from '../domain/signing-secret';
import { logger } from '../logger';
import { childOf, formatTraceparent } from '../tracing';
import { Coalescer } from './coalescer';
import { postJson } from './http-sender';
import { type DeadLetter, type DeliveryMessage, notificationTrace } from './messages';
import type { NetworkPolicy } from './network-policy';
import { judge, leaseWaitMs, notificationBackoffMs } from './retry-policy';
import type { ServiceCredentials } from './sender-credentials';
import { webhookHeaders, webhookId } from './webhook';

export interface DelivererSettings {
  readonly timeoutMs: number;
  readonly userAgent: string;
  readonly retryWindowMs: number;
  readonly backoff: Backoff;
  /** The TLS client identity and the `v1a` key (lib/delivery/sender-credentials.ts); none: plain v1. */
  readonly credentials?: ServiceCredentials;
  /**
   * The breaker: an endpoint whose every attempt has failed for `suspendAfterMs` is suspended
   * (docs/delivery.md); none: never.
   */
  readonly breaker?: { readonly store: EndpointBreakerStore; readonly suspendAfterMs: number };
}

/** What became of one attempt, for the queue (delete, hide for a while, dead-letter) and metrics. */
export type AttemptResult =
  | { readonly kind: 'delivered'; readonly latencyMs: number }
  | {
      readonly kind: 'dropped';
      readonly why: 'subscription deleted' | 'superseded' | 'gone';
      readonly failed: boolean;
    }
  /** `failed` is false when the attempt waited for another one and sent nothing. */
  | { readonly kind: 'retry'; readonly delayMs: number; readonly failed: boolean }
  /** `suspended`: this attempt suspended the endpoint (counted once, as EndpointsSuspended). */
  | {
      readonly kind: 'dead-letter';
      readonly letter: DeadLetter;
      readonly failed: boolean;
      readonly suspended?: boolean;
    };

/**
 * A cursor lease outlives the POST's time-out by this much: the store calls before the POST and
 * the POST's end past its time-out (its verdict waits a turn of the event loop). No write follows a
 * 2xx (the lease commits ahead), so the lease runs out this soon after the POST.
 */
const LEASE_MARGIN_MS = 1000;
/**
 * Of that margin, what the POST may still take past its time-out. No POST outlives its lease: one
 * that starts late (the store or the credentials were slow) gets a shorter time-out, ending this
 * long before the lease; when that would be under half the time-out, it is not started (the lease
 * is released and the notification tried again).
 */
const POST_END_MARGIN_MS = 500;
/** The pairs one process remembers at most of each kind of note (each a few dozen bytes). */
const PAIR_NOTES_KEPT = 10_000;
/** Cursors outlive the longest retry window by a day (their TTL; refreshed on every write). */
const CURSOR_RETENTION_SECONDS = 24 * 3600;
/**
 * Items of each kind of store call in flight at once: one BatchGetItem of subscriptions, 100 lease
 * writes, four completion batches (only under contention). A deliver invocation attempts up to 250 notifications at once
 * (10 packs); their store calls go 100 at a time, so that a process's DynamoDB requests do not
 * pile up behind the client's sockets past their time-outs (under `npm start` one process runs
 * every invocation against DynamoDB Local). The POSTs are not bounded by it: a hanging consumer
 * holds none of these.
 */
const STORE_ITEMS_AT_ONCE = 100;

/**
 * One attempt to deliver one notification (retried with back-off until the retry window ends;
 * 410 deletes the subscription; see the OpenAPI document's webhook): checks the subscription still
 * exists and takes the ordering lease of its (subscription, address) cursor, which records the
 * event as delivered ahead of the POST (docs/delivery.md, "Ordering cursors"), POSTs, and judges
 * the answer: a 2xx writes nothing more, a failure puts the cursor back. Never throws for a
 * consumer's failure; throws only when the store fails, and the message is then retried by the
 * queue. Attempts that run together share their store calls: one BatchGetItem for their
 * subscriptions, their leases at once, and one BatchExecuteStatement for the completions that free
 * early the leases other attempts of the process wait for.
 */
export class Deliverer {
  private readonly shared: ReturnType<typeof sharedStoreCalls>;
  /**
   * The (subscription, address) pairs for which an attempt in this process was refused as leased:
   * their holder, if in this process, frees the lease at its 2xx instead of letting it run out,
   * so that the waiter goes at its next try wherever it runs (docs/delivery.md, "Contention").
   */
  private readonly waiting = new PairNotes<true>();
  /**
   * The leases held in this process whose attempt got its 2xx, by pair: the next attempt of the
   * pair in this process takes such a lease over at once rather than waiting for its end.
   */
  private readonly finished = new PairNotes<string>();

  constructor(
    private readonly subscriptions: SubscriptionStore,
    private readonly cursors: DeliveryCursorStore,
    private readonly policy: NetworkPolicy,
    private readonly settings: DelivererSettings,
    private readonly clock: () => number = Date.now,
  ) {
    this.shared = sharedStoreCalls(subscriptions, cursors, clock);
  }

  async attempt(message: DeliveryMessage, receiveCount: number): Promise<AttemptResult> {
    const now = this.clock();
    const deadline = Date.parse(message.enqueuedAt) + this.settings.retryWindowMs;
    const attempt = cursorAttempt(message, now, this.settings, this.finished.take(message, now));
    const trace = notificationTrace(message);
    const [subscription, { lease, cursor }] = await Promise.all([
      this.shared.subscriptions.run(message.subscriptionId),
      this.shared.leases.run(attempt),
    ]);
    if (!subscription || !isFor(message, subscription)) {
      if (lease.kind === 'acquired') await this.release(cursor);
      logger.info('notification dropped', {
        traceId: trace.traceId,
        subscriptionId: message.subscriptionId,
        why: 'subscription deleted',
      });
      return { kind: 'dropped', why: 'subscription deleted', failed: false };
    }
    if (subscription.endpointSuspendedAt !== undefined) {
      // Suspended: no attempt; straight to its dead letters, for the consumer's redrive to resume.
      if (lease.kind === 'acquired') await this.release(cursor);
      return this.deadLetter(
        message,
        subscription,
        receiveCount,
        suspendedReason(subscription.endpointSuspendedAt),
        false,
      );
    }
    if (lease.kind === 'superseded') {
      logger.info('notification dropped', {
        traceId: trace.traceId,
        subscriptionId: subscription.id,
        why: 'superseded',
      });
      return { kind: 'dropped', why: 'superseded', failed: false };
    }
    if (lease.kind === 'leased') {
      this.waiting.note(cursor, true, lease.leaseUntil, now);
      if (now >= deadline) {
        const reason = `the retry window of ${this.windowText()} ended while an earlier notification for the address was being delivered`;
        return this.deadLetter(message, subscription, receiveCount, reason, false);
      }
      const wait = leaseWaitMs(lease.leaseUntil - now, this.settings.backoff);
      return { kind: 'retry', delayMs: Math.max(0, Math.min(wait, deadline - now)), failed: false };
    }

    const body = JSON.stringify(message.event);
    const id = webhookId(subscription.id, message.publisherId, message.event);
    const credentials = await this.settings.credentials?.at(now, subscription.endpointUri);
    // The attempt is a span of the notification's trace: the consumer's `traceparent` names it.
    const span = childOf(trace);
    const sentAt = this.clock();
    const timeoutMs = Math.min(this.settings.timeoutMs, cursor.leaseUntil - POST_END_MARGIN_MS - sentAt);
    if (timeoutMs < this.settings.timeoutMs / 2) {
      // Too late to POST within the lease: try again.
      await this.release(cursor);
      logger.warn('delivery attempt not started: too little of its lease left', {
        traceId: trace.traceId,
        subscriptionId: subscription.id,
        leaseLeftMs: cursor.leaseUntil - sentAt,
      });
      return { kind: 'retry', delayMs: leaseWaitMs(0, this.settings.backoff), failed: false };
    }
    const outcome = await postJson(subscription.endpointUri, body, {
      headers: {
        ...webhookHeaders(id, body, secretsInForce(subscription.signing, now), now, credentials?.signingKey),
        traceparent: formatTraceparent(span),
      },
      timeoutMs,
      policy: this.policy,
      userAgent: this.settings.userAgent,
      tls: credentials?.tls,
    });
    const verdict = judge(outcome, timeoutMs);
    // A notification's path (docs/operations.md): one line per attempt, whatever its outcome.
    logger.info('delivery attempt', {
      traceId: trace.traceId,
      spanId: span.spanId,
      subscriptionId: subscription.id,
      endpointUri: subscription.endpointUri,
      attempt: receiveCount,
      outcome: verdict.kind,
      ...(outcome.kind === 'response' ? { status: outcome.status } : {}),
      ...(verdict.kind === 'retry' || verdict.kind === 'give-up' ? { reason: verdict.reason } : {}),
      durationMs: this.clock() - sentAt,
    });
    if (verdict.kind === 'delivered') {
      // The lease recorded the delivery already; it is freed early only for a waiting attempt.
      if (this.waiting.take(cursor, this.clock())) await this.freeEarly(cursor);
      else this.finished.note(cursor, cursor.leaseOwner, cursor.leaseUntil, this.clock());
      // A 2xx resets the breaker's clock (a write only after failures).
      if (subscription.endpointFailingSince !== undefined) await this.resetFailures(subscription);
      return { kind: 'delivered', latencyMs: Math.max(0, this.clock() - Date.parse(message.acceptedAt)) };
    }

    // The cursor keeps the failure in the write that frees the lease (GET …/deliveries shows it).
    await this.release(
      cursor,
      verdict.kind === 'gone'
        ? undefined
        : { at: this.clock(), reason: verdict.reason, attempts: receiveCount },
    );
    const log = {
      traceId: trace.traceId,
      subscriptionId: subscription.id,
      endpointUri: subscription.endpointUri,
      receiveCount,
    };
    if (verdict.kind === 'gone') {
      logger.info('consumer answered 410 Gone: deleting its subscription', log);
      await this.subscriptions.deleteSubscription(subscription.id, subscription.owner);
      return { kind: 'dropped', why: 'gone', failed: true };
    }
    const failedAt = this.clock();
    if (await this.suspends(subscription, failedAt)) {
      const reason = `${suspendedReason(failedAt)}; last failure: ${verdict.reason}`;
      return { ...this.deadLetter(message, subscription, receiveCount, reason, true), suspended: true };
    }
    if (verdict.kind === 'give-up') {
      return this.deadLetter(message, subscription, receiveCount, verdict.reason, true);
    }
    if (failedAt >= deadline) {
      const reason = `the retry window of ${this.windowText()} ended; last failure: ${verdict.reason}`;
      return this.deadLetter(message, subscription, receiveCount, reason, true);
    }
    if (verdict.retryAfterMs !== undefined && failedAt + verdict.retryAfterMs > deadline) {
      const reason = `the consumer asked to retry after ${verdict.retryAfterMs / 1000} s, past the end of the retry window of ${this.windowText()}; last failure: ${verdict.reason}`;
      return this.deadLetter(message, subscription, receiveCount, reason, true);
    }
    // The last retry falls at the end of the window rather than past it.
    const delayMs =
      verdict.retryAfterMs ??
      Math.min(notificationBackoffMs(receiveCount, this.settings.backoff), deadline - failedAt);
    logger.warn('delivery attempt failed; retrying', { ...log, reason: verdict.reason, delayMs });
    return { kind: 'retry', delayMs, failed: true };
  }

  /**
   * The breaker after a failed attempt at `failedAt`: the first failure since a 2xx is noted; one
   * when every attempt has failed for `suspendAfterMs` suspends the endpoint (true when this one did).
   */
  private async suspends(subscription: Subscription, failedAt: number): Promise<boolean> {
    const breaker = this.settings.breaker;
    const since = subscription.endpointFailingSince;
    if (!breaker) return false;
    try {
      if (since === undefined) {
        await breaker.store.recordEndpointFailure(subscription.id, failedAt);
        return false;
      }
      if (failedAt - since < breaker.suspendAfterMs) return false;
      const suspended = await breaker.store.suspendEndpoint(subscription.id, failedAt);
      if (suspended) logger.warn('endpoint suspended', { subscriptionId: subscription.id, since });
      return suspended;
    } catch (error) {
      // Not worth failing the attempt for: the next failure notes it.
      logger.warn('breaker write failed', { error });
      return false;
    }
  }

  private async resetFailures(subscription: Subscription): Promise<void> {
    try {
      await this.settings.breaker?.store.clearEndpointFailure(subscription.id);
    } catch (error) {
      logger.warn('breaker write failed', { error });
    }
  }

  /** Frees a delivered attempt's lease for its waiter; if that fails, the lease runs out anyway. */
  private async freeEarly(completed: CompletedAttempt): Promise<void> {
    try {
      await this.shared.completions.run(completed);
    } catch (error) {
      logger.warn('could not free a delivered lease early; it will expire', { error });
    }
  }

  /**
   * A lease left behind expires by itself; failing to free it early is not worth failing for (its
   * cursor then stays at the attempt's event: its retry, the same message, takes it again).
   */
  private async release(cursor: DeliveryAttempt, failure?: AttemptFailure): Promise<void> {
    try {
      await this.cursors.releaseDeliveryLease(cursor, failure);
    } catch (error) {
      logger.warn('could not free a delivery lease; it will expire', { error });
    }
  }

  private deadLetter(
    message: DeliveryMessage,
    subscription: Subscription,
    attempts: number,
    reason: string,
    failed: boolean,
  ): Extract<AttemptResult, { kind: 'dead-letter' }> {
    const letter: DeadLetter = {
      kind: 'dead-letter',
      reason,
      subscriptionId: subscription.id,
      subscriptionCreatedAt: subscription.createdAt,
      endpointUri: subscription.endpointUri,
      resourceAddress: message.resourceAddress,
      publisherId: message.publisherId,
      webhookId: webhookId(subscription.id, message.publisherId, message.event),
      event: message.event,
      acceptedAt: message.acceptedAt,
      enqueuedAt: message.enqueuedAt,
      attempts,
      deadLetteredAt: new Date(this.clock()).toISOString(),
    };
    logger.warn('notification dead-lettered', {
      traceId: notificationTrace(message).traceId,
      subscriptionId: subscription.id,
      reason,
      attempts,
    });
    return { kind: 'dead-letter', letter, failed };
  }

  private windowText(): string {
    return `${this.settings.retryWindowMs / 1000} s`;
  }
}

/** The dead letters' reason while an endpoint is suspended (docs/delivery.md). */
function suspendedReason(suspendedAt: number): string {
  return `endpoint suspended since ${new Date(suspendedAt).toISOString()}: every attempt failed for the suspension time; a redrive of its dead letters resumes it`;
}

/**
 * The store calls of the attempts that run together, each gathered into one batch call per turn of
 * the event loop.
 */
function sharedStoreCalls(
  subscriptions: SubscriptionStore,
  cursors: DeliveryCursorStore,
  clock: () => number,
) {
  return {
    subscriptions: new Coalescer<string, Subscription | undefined>(async (ids) => {
      const live = await subscriptions.getSubscriptions(ids);
      return ids.map((id) => ({ status: 'fulfilled', value: live.get(id) }));
    }, STORE_ITEMS_AT_ONCE),
    leases: new Coalescer<DeliveryAttempt, { lease: LeaseOutcome; cursor: DeliveryAttempt }>(
      async (attempts) => {
        // A lease starts when its write is sent, not when its attempt began: a batch may have
        // waited for the ones before it, and that wait would eat the lease's margin.
        const sentAt = clock();
        const stamped = attempts.map((a) => ({
          ...a,
          now: sentAt,
          leaseUntil: sentAt + a.leaseUntil - a.now,
        }));
        const outcomes = await cursors.acquireDeliveryLeases(stamped);
        return outcomes.map((outcome, i) =>
          outcome.status === 'fulfilled'
            ? { status: 'fulfilled', value: { lease: outcome.value, cursor: stamped[i] as DeliveryAttempt } }
            : outcome,
        );
      },
      STORE_ITEMS_AT_ONCE,
    ),
    completions: new Coalescer<CompletedAttempt, void>(
      (attempts) => cursors.completeDeliveries(attempts),
      STORE_ITEMS_AT_ONCE,
    ),
  };
}

/** Notes on (subscription, address) pairs that hold until a lease's end, at most PAIR_NOTES_KEPT. */
class PairNotes<V> {
  private readonly notes = new Map<string, { value: V; until: number }>();

  note(pair: DeliveryCursorKey, value: V, until: number, now: number): void {
    if (this.notes.size >= PAIR_NOTES_KEPT) {
      for (const [key, note] of this.notes) if (note.until < now) this.notes.delete(key);
    }
    if (this.notes.size < PAIR_NOTES_KEPT) this.notes.set(pairKey(pair), { value, until });
  }

  /** The pair's note, forgotten, if its lease has not ended by `now`. */
  take(pair: DeliveryCursorKey, now: number): V | undefined {
    const key = pairKey(pair);
    const note = this.notes.get(key);
    this.notes.delete(key);
    return note && note.until >= now ? note.value : undefined;
  }
}

function pairKey(pair: DeliveryCursorKey): string {
  return `${pair.subscriptionId}\n${pair.resourceAddress}`;
}

/**
 * Whether the message was queued for this subscription rather than for an earlier one of the same
 * id that delete-all retired: that one's notifications are never sent, not even to its successor,
 * whose initial notification may have carried the same event already.
 */
function isFor(message: DeliveryMessage, subscription: Subscription): boolean {
  return (
    message.subscriptionCreatedAt === undefined || message.subscriptionCreatedAt === subscription.createdAt
  );
}

/**
 * The ordering cursor's view of one attempt of `message` at `now`: the lease lasts the attempt's
 * time-out plus a margin and records the attempt's event as delivered (with its latency from the
 * acceptance), it may take over `finishedLease`, and the cursor outlives the retry window.
 */
function cursorAttempt(
  message: Pick<
    DeliveryMessage,
    'subscriptionId' | 'resourceAddress' | 'event' | 'acceptedAt' | 'enqueuedAt'
  >,
  now: number,
  settings: Pick<DelivererSettings, 'timeoutMs' | 'retryWindowMs'>,
  finishedLease: string | undefined,
): DeliveryAttempt {
  const { source, id, time } = message.event;
  return {
    ...(finishedLease === undefined ? {} : { finishedLease }),
    subscriptionId: message.subscriptionId,
    resourceAddress: message.resourceAddress,
    timeKey: parseTime(time),
    eventKey: eventKey(message.event),
    leaseOwner: leaseOwnerOf(message),
    now,
    leaseUntil: now + settings.timeoutMs + LEASE_MARGIN_MS,
    expiresAt: Math.ceil((now + settings.retryWindowMs) / 1000) + CURSOR_RETENTION_SECONDS,
    delivered: {
      source,
      id,
      time,
      deliveredAt: now,
      latencyMs: Math.max(0, now - Date.parse(message.acceptedAt)),
    },
  };
}

/**
 * The lease owner of a notification: the same on every receive of its message and on the
 * messages it leaves for its retries (they keep its `enqueuedAt`), so that it may take its own
 * lease again after a crash mid-POST; another for the same event queued again (a fan-out's rerun
 * has a new `enqueuedAt`), which the cursor then supersedes.
 */
function leaseOwnerOf(
  message: Pick<DeliveryMessage, 'subscriptionId' | 'resourceAddress' | 'event' | 'enqueuedAt'>,
): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        message.subscriptionId,
        message.resourceAddress,
        eventKey(message.event),
        message.enqueuedAt,
      ]),
    )
    .digest('base64url')
    .slice(0, 22);
}
