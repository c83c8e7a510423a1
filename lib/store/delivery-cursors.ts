import { deliveryStatusSince, eventKey, leaseRefusal, supersedes } from '../domain/delivery-cursor';
import { parseTime } from '../domain/event';
import type {
  AttemptFailure,
  CompletedAttempt,
  DeadLetterRecord,
  DeliveryAttempt,
  DeliveryStatus,
  LeaseOutcome,
  Page,
  PageRequest,
  Subscription,
} from '../domain/model';
import type { DeliveryCursorStore } from '../domain/ports';
import { PARTITION_KEY, partitionQuery } from './dead-letter-store';
import type { DynamoTable, Statement } from './dynamo-table';
import { keys } from './keys';

/**
 * The ordering cursors of delivery: one item per (subscription, publisher address) holding the
 * newest delivered event (`deliveredTimeKey`, `deliveredEvent`) and the lease of the attempt in
 * flight (`leaseOwner`, `leaseUntil`). Every transition is one conditional UpdateItem, so two
 * attempts for the same pair can never both be sending, and none sends an event older than the
 * delivered one. The lease commits ahead (docs/delivery.md, "Ordering cursors"): its write moves
 * the cursor to the attempt's event and keeps what it replaced (`replaced…`), a failed attempt's
 * release puts that back, and a 2xx writes nothing: one write per delivered notification. The rules
 * are lib/domain/delivery-cursor.ts's; here they are conditions and update expressions.
 * Cursors carry a TTL refreshed on every write instead of being deleted with their subscription: a
 * cursor is only read while a delivery message for it lives, and deleting them would make DELETE
 * /subscriptions cost a query per subscription. The same writes keep what the consumer saw
 * (`lastDelivered`, `lastFailure`), which GET /subscriptions/{id}/deliveries reads: no write of its
 * own per notification. A subscription made again has the id of the one deleted: only what was
 * written since it was made is shown.
 */
export class DynamoDeliveryCursors implements DeliveryCursorStore {
  constructor(private readonly table: DynamoTable) {}

  /**
   * The leases of many attempts, each one conditional UpdateItem of `acquire`, all at once: one
   * round trip, one write unit per attempt, and a pair's first attempt creates its cursor in the
   * same call. No read first and no PartiQL: on DynamoDB's cost model a consistent read of every
   * cursor costs more than the failed writes it would spare, and PartiQL cannot create a missing
   * cursor (docs/delivery.md, "Cost of the ordering cursors").
   */
  acquireDeliveryLeases(attempts: readonly DeliveryAttempt[]): Promise<PromiseSettledResult<LeaseOutcome>[]> {
    return Promise.allSettled(attempts.map((a) => this.acquire(a)));
  }

  /**
   * Completes many attempts in one round trip: frees the leases of delivered attempts that another
   * attempt waits for (lib/delivery/deliverer.ts), recording their events again; an attempt whose
   * lease ran out meanwhile, or whose statement failed, goes through the single-item `complete`.
   */
  async completeDeliveries(attempts: readonly CompletedAttempt[]): Promise<PromiseSettledResult<void>[]> {
    const results = await this.execute(attempts, (a) => ({
      Statement:
        `UPDATE "${this.table.name}" SET deliveredTimeKey = ? SET deliveredEvent = ? SET expiresAt = ? ` +
        `SET lastDelivered = ? ${REMOVE_LEASE.map((name) => `REMOVE ${name}`).join(' ')} ` +
        'WHERE pk = ? AND sk = ? AND leaseOwner = ?',
      Parameters: [a.timeKey, a.eventKey, a.expiresAt, a.delivered, ...this.keyParameters(a), a.leaseOwner],
    }));
    return Promise.allSettled(
      results.map((result, i) => (result.ok ? undefined : this.complete(attempts[i] as CompletedAttempt))),
    );
  }

  /**
   * The lease for one attempt (leasedCursor), unless the cursor's event is as new or newer
   * (superseded) or another attempt holds a live lease (leased) that has not ended in a 2xx the
   * attempt knows of (`finishedLease`): the rule of
   * lib/domain/delivery-cursor.ts as this condition. The write keeps what it replaced (the right-hand
   * sides read the item as it was). The lease's own holder is refused by it (its cursor is at its
   * event already) and takes it again with `renew`: two writes, only for a message received again.
   */
  private async acquire(a: DeliveryAttempt): Promise<LeaseOutcome> {
    const outcome = await this.table.tryUpdate({
      Key: this.keyOf(a),
      UpdateExpression:
        'SET replacedTimeKey = if_not_exists(deliveredTimeKey, :none), ' +
        'replacedEvent = if_not_exists(deliveredEvent, :none), ' +
        'replacedDelivered = if_not_exists(lastDelivered, :nothing), ' +
        'deliveredTimeKey = :t, deliveredEvent = :e, lastDelivered = :d, ' +
        'leaseOwner = :owner, leaseUntil = :until, expiresAt = :expires',
      ConditionExpression:
        '(attribute_not_exists(deliveredTimeKey) OR deliveredTimeKey < :t OR ' +
        '(deliveredTimeKey = :t AND deliveredEvent <> :e)) AND ' +
        `(attribute_not_exists(leaseUntil) OR leaseUntil < :now${a.finishedLease === undefined ? '' : ' OR leaseOwner = :finished'})`,
      ExpressionAttributeValues: {
        ...(a.finishedLease === undefined ? {} : { ':finished': a.finishedLease }),
        ':none': '',
        ':nothing': null,
        ':t': a.timeKey,
        ':e': a.eventKey,
        ':d': a.delivered,
        ':owner': a.leaseOwner,
        ':until': a.leaseUntil,
        ':expires': a.expiresAt,
        ':now': a.now,
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    if (outcome.written) return { kind: 'acquired' };
    // Refused by the condition: superseded, leased, or its own lease to take again.
    const refused = leaseRefusal(outcome.current, a);
    if (refused) return refused;
    if (outcome.current.leaseOwner === a.leaseOwner && (await this.renew(a))) return { kind: 'acquired' };
    // Changed since (a lease read without its end still counts): try again after a wait.
    return { kind: 'leased', leaseUntil: Number(outcome.current.leaseUntil ?? a.now) };
  }

  /** The holder's own lease taken again: a new end, the same position and what it replaced. */
  private renew(a: DeliveryAttempt): Promise<boolean> {
    return this.table.update({
      Key: this.keyOf(a),
      UpdateExpression: 'SET leaseUntil = :until, expiresAt = :expires, lastDelivered = :d',
      ConditionExpression: 'leaseOwner = :owner',
      ExpressionAttributeValues: {
        ':until': a.leaseUntil,
        ':expires': a.expiresAt,
        ':d': a.delivered,
        ':owner': a.leaseOwner,
      },
    });
  }

  private async complete(a: CompletedAttempt): Promise<void> {
    const moved = await this.table.update({
      Key: this.keyOf(a),
      UpdateExpression:
        'SET deliveredTimeKey = :t, deliveredEvent = :e, expiresAt = :expires, lastDelivered = :d ' +
        `REMOVE ${REMOVE_LEASE.join(', ')}`,
      ConditionExpression: 'leaseOwner = :owner',
      ExpressionAttributeValues: {
        ':t': a.timeKey,
        ':e': a.eventKey,
        ':expires': a.expiresAt,
        ':d': a.delivered,
        ':owner': a.leaseOwner,
      },
    });
    if (moved) return;
    // The lease ran out while the consumer answered and another attempt may hold it now: still
    // record the delivery, but only forward, and leave that attempt's lease alone.
    await this.table.update({
      Key: this.keyOf(a),
      UpdateExpression:
        'SET deliveredTimeKey = :t, deliveredEvent = :e, expiresAt = :expires, lastDelivered = :d',
      ConditionExpression: 'attribute_not_exists(deliveredTimeKey) OR deliveredTimeKey < :t',
      ExpressionAttributeValues: {
        ':t': a.timeKey,
        ':e': a.eventKey,
        ':expires': a.expiresAt,
        ':d': a.delivered,
      },
    });
  }

  /**
   * Frees the lease and puts back what it replaced (releasedCursor); after a failed attempt, the
   * same write keeps the failure. The process that took a lease is the one that frees it, so a
   * lease freed here always kept what it replaced (one of the release before, which did not, is
   * freed by that release's own code or runs out).
   */
  async releaseDeliveryLease(a: DeliveryAttempt, failure?: AttemptFailure): Promise<void> {
    await this.table.update({
      Key: this.keyOf(a),
      UpdateExpression:
        'SET deliveredTimeKey = replacedTimeKey, deliveredEvent = replacedEvent, ' +
        `lastDelivered = replacedDelivered${failure ? ', lastFailure = :failure' : ''} ` +
        `REMOVE ${REMOVE_LEASE.join(', ')}`,
      ConditionExpression: 'leaseOwner = :owner',
      ExpressionAttributeValues: {
        ':owner': a.leaseOwner,
        ...(failure ? { ':failure': failure } : {}),
      },
    });
  }

  /**
   * Runs one statement per attempt, 25 to a BatchExecuteStatement, all chunks at once. A chunk
   * holds each key once (DynamoDB refuses a batch naming a key twice): a repeated pair waits for
   * a later chunk. A chunk that fails whole fails its statements, which their callers retry singly.
   */
  private async execute<A extends DeliveryAttempt>(
    attempts: readonly A[],
    statement: (a: A) => Statement,
  ): Promise<StatementResult[]> {
    const results = new Array<StatementResult>(attempts.length);
    await Promise.all(
      chunksOfDistinctKeys(attempts).map(async (chunk) => {
        try {
          const errors = await this.table.executeStatements(chunk.map((i) => statement(attempts[i] as A)));
          chunk.forEach((index, j) => {
            const code = errors[j];
            results[index] = code === undefined ? { ok: true } : { ok: false, code };
          });
        } catch {
          for (const index of chunk) results[index] = { ok: false, code: 'RequestFailed' };
        }
      }),
    );
    return results;
  }

  /** The cursor's key as the statements' parameters. */
  private keyParameters(a: DeliveryAttempt): [string, string] {
    const key = this.keyOf(a);
    return [key.pk, key.sk];
  }

  private keyOf(a: DeliveryAttempt) {
    return keys.deliveryCursor(a.subscriptionId, a.resourceAddress);
  }

  async listDeliveries(subscription: Subscription, request: PageRequest): Promise<Page<DeliveryStatus>> {
    const page = await this.table.listPage(
      partitionQuery(subscription.id, keys.deliveryCursorPrefix),
      request,
      PARTITION_KEY,
    );
    const since = Date.parse(subscription.createdAt);
    const items = page.items.flatMap(
      (item) =>
        deliveryStatusSince(String(item.sk).slice(keys.deliveryCursorPrefix.length), item, since) ?? [],
    );
    return { items, next: page.next };
  }

  async deliveredSince(
    subscriptionId: string,
    letters: readonly DeadLetterRecord[],
  ): Promise<Set<DeadLetterRecord>> {
    const addresses = [...new Set(letters.map((letter) => letter.resourceAddress))];
    const cursors = await this.table.batchGet(
      addresses.map((address) => keys.deliveryCursor(subscriptionId, address)),
    );
    const bySk = new Map(cursors.map((cursor) => [String(cursor.sk), cursor]));
    return new Set(
      letters.filter((letter) => {
        const cursor = bySk.get(keys.deliveryCursor(subscriptionId, letter.resourceAddress).sk);
        return (
          cursor !== undefined && supersedes(cursor, parseTime(letter.event.time), eventKey(letter.event))
        );
      }),
    );
  }
}

/** The lease and what it replaced, removed when it is freed. */
const REMOVE_LEASE = ['leaseOwner', 'leaseUntil', 'replacedTimeKey', 'replacedEvent', 'replacedDelivered'];

type StatementResult = { readonly ok: true } | { readonly ok: false; readonly code: string };

/** BatchExecuteStatement's limit of statements per request. */
const STATEMENTS_PER_BATCH = 25;

/** Indexes of `attempts` in chunks of at most 25 with no (subscription, address) twice in one. */
function chunksOfDistinctKeys(attempts: readonly DeliveryAttempt[]): number[][] {
  const chunks: { indexes: number[]; keys: Set<string> }[] = [];
  attempts.forEach((a, index) => {
    const key = `${a.subscriptionId}\n${a.resourceAddress}`;
    let chunk = chunks.find((c) => c.indexes.length < STATEMENTS_PER_BATCH && !c.keys.has(key));
    if (!chunk) {
      chunk = { indexes: [], keys: new Set() };
      chunks.push(chunk);
    }
    chunk.indexes.push(index);
    chunk.keys.add(key);
  });
  return chunks.map((chunk) => chunk.indexes);
}
