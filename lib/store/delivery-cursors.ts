import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  BatchExecuteStatementCommand,
  type DynamoDBDocumentClient,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttemptFailure, CompletedAttempt, DeliveryAttempt, LeaseOutcome } from '../domain/model';
import { isConditionFailure } from './conditional-write';
import type { DynamoTable } from './dynamo-table';
import { keys } from './keys';

/**
 * The ordering cursors of delivery: one item per (subscription, publisher address) holding the
 * newest delivered event (`deliveredTimeKey`, `deliveredEvent`) and the lease of the attempt in
 * flight (`leaseOwner`, `leaseUntil`). Every transition is one conditional UpdateItem, so two
 * attempts for the same pair can never both be sending, and none sends an event older than the
 * delivered one. Cursors carry a TTL refreshed on every write instead of being deleted with their
 * subscription: a cursor is only read while a delivery message for it lives, and deleting them
 * would make DELETE /subscriptions cost a query per subscription. The writes that complete or free
 * a lease also keep what the consumer saw (`lastDelivered`, `lastFailure`), which GET
 * /subscriptions/{id}/deliveries reads: no write of its own per notification.
 */
export class DeliveryCursors {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(table: DynamoTable) {
    this.client = table.client;
    this.tableName = table.name;
  }

  /**
   * The leases of many attempts, each one conditional UpdateItem of `acquire`, all at once: one
   * round trip, one write unit per attempt, and a pair's first attempt creates its cursor in the
   * same call. No read first and no PartiQL: on DynamoDB's cost model a consistent read of every
   * cursor costs more than the failed writes it would spare, and PartiQL cannot create a missing
   * cursor (docs/delivery.md, "Cost of the ordering cursors").
   */
  acquireMany(attempts: readonly DeliveryAttempt[]): Promise<PromiseSettledResult<LeaseOutcome>[]> {
    return Promise.allSettled(attempts.map((a) => this.acquire(a)));
  }

  /**
   * Completes many attempts in one round trip; an attempt whose lease ran out meanwhile, or whose
   * statement failed, goes through the single-item `complete`.
   */
  async completeMany(attempts: readonly CompletedAttempt[]): Promise<PromiseSettledResult<void>[]> {
    const results = await this.execute(attempts, (a) => ({
      Statement:
        `UPDATE "${this.tableName}" SET deliveredTimeKey = ? SET deliveredEvent = ? SET expiresAt = ? ` +
        'SET lastDelivered = ? REMOVE leaseOwner REMOVE leaseUntil WHERE pk = ? AND sk = ? AND leaseOwner = ?',
      Parameters: [a.timeKey, a.eventKey, a.expiresAt, a.delivered, ...this.keyOf(a), a.leaseOwner],
    }));
    return Promise.allSettled(
      results.map((result, i) => (result.ok ? undefined : this.complete(attempts[i] as CompletedAttempt))),
    );
  }

  /**
   * The lease for one attempt, unless the cursor's event is as new or newer (superseded) or another
   * attempt holds a live lease (leased): the rule, written once, as this condition.
   */
  async acquire(a: DeliveryAttempt): Promise<LeaseOutcome> {
    try {
      await this.client.send(
        new UpdateCommand({
          ...this.target(a),
          UpdateExpression: 'SET leaseOwner = :owner, leaseUntil = :until, expiresAt = :expires',
          ConditionExpression:
            '(attribute_not_exists(deliveredTimeKey) OR deliveredTimeKey < :t OR ' +
            '(deliveredTimeKey = :t AND deliveredEvent <> :e)) AND ' +
            '(attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
          ExpressionAttributeValues: {
            ':owner': a.leaseOwner,
            ':until': a.leaseUntil,
            ':expires': a.expiresAt,
            ':t': a.timeKey,
            ':e': a.eventKey,
            ':now': a.now,
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { kind: 'acquired' };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return judgeHeld(a, error.Item ? unmarshall(error.Item as Record<string, AttributeValue>) : {});
    }
  }

  async complete(a: CompletedAttempt): Promise<void> {
    const moved = await this.conditionalUpdate({
      ...this.target(a),
      UpdateExpression:
        'SET deliveredTimeKey = :t, deliveredEvent = :e, expiresAt = :expires, lastDelivered = :d ' +
        'REMOVE leaseOwner, leaseUntil',
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
    await this.conditionalUpdate({
      ...this.target(a),
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

  /** Frees the lease; after a failed attempt, the same write keeps the failure. */
  async release(a: DeliveryAttempt, failure?: AttemptFailure): Promise<void> {
    await this.conditionalUpdate({
      ...this.target(a),
      UpdateExpression: `${failure ? 'SET lastFailure = :failure ' : ''}REMOVE leaseOwner, leaseUntil`,
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
    statement: (a: A) => BatchStatement,
  ): Promise<StatementResult[]> {
    const results = new Array<StatementResult>(attempts.length);
    await Promise.all(
      chunksOfDistinctKeys(attempts).map(async (chunk) => {
        try {
          const { Responses = [] } = await this.client.send(
            new BatchExecuteStatementCommand({
              Statements: chunk.map((i) => statement(attempts[i] as A)),
            }),
          );
          chunk.forEach((index, j) => {
            const error = Responses[j]?.Error;
            results[index] = error ? { ok: false, code: error.Code ?? 'Unknown' } : { ok: true };
          });
        } catch {
          for (const index of chunk) results[index] = { ok: false, code: 'RequestFailed' };
        }
      }),
    );
    return results;
  }

  private keyOf(a: DeliveryAttempt): [string, string] {
    const key = keys.deliveryCursor(a.subscriptionId, a.resourceAddress);
    return [key.pk, key.sk];
  }

  private target(a: DeliveryAttempt) {
    return { TableName: this.tableName, Key: keys.deliveryCursor(a.subscriptionId, a.resourceAddress) };
  }

  /** False when the condition did not hold. */
  private async conditionalUpdate(input: UpdateCommandInput): Promise<boolean> {
    try {
      await this.client.send(new UpdateCommand(input));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

type BatchStatement = NonNullable<
  ConstructorParameters<typeof BatchExecuteStatementCommand>[0]['Statements']
>[number];

type StatementResult = { readonly ok: true } | { readonly ok: false; readonly code: string };

/** BatchExecuteStatement's limit of statements per request. */
const STATEMENTS_PER_BATCH = 25;

/** Why `acquire`'s condition refused the lease, from the cursor as it was: superseded before leased. */
function judgeHeld(a: DeliveryAttempt, current: Record<string, unknown>): LeaseOutcome {
  if (supersedes(current, a.timeKey, a.eventKey)) return { kind: 'superseded' };
  return { kind: 'leased', leaseUntil: Number(current.leaseUntil ?? a.now) };
}

/**
 * True when the cursor has delivered this event, or one newer, already (never send it then): how a
 * refusal of `acquire`'s condition is told apart from a held lease, and how a redrive reports a
 * dead letter dropped. The condition stays the rule; test/store/lease-rule.test.ts holds the two to
 * agree.
 */
export function supersedes(cursor: Record<string, unknown>, timeKey: string, eventKey: string): boolean {
  const delivered = typeof cursor.deliveredTimeKey === 'string' ? cursor.deliveredTimeKey : '';
  return delivered > timeKey || (delivered === timeKey && cursor.deliveredEvent === eventKey);
}

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
