import { type AttributeValue, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchExecuteStatementCommand,
  type DynamoDBDocumentClient,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttemptFailure, CompletedAttempt, DeliveryAttempt, LeaseOutcome } from '../domain/model';
import type { DynamoTable, Item } from './dynamo-table';
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

  constructor(private readonly table: DynamoTable) {
    this.client = table.client;
    this.tableName = table.name;
  }

  /**
   * The leases of many attempts in two round trips: one consistent BatchGetItem of their cursors,
   * then one BatchExecuteStatement (25 statements each) writing only the leases the cursors allow,
   * each statement judged on its own. The read is the cheap part: on DynamoDB Local a conditional
   * PartiQL UPDATE that fails costs more than the write it replaces (about 1.1 ms of its CPU against
   * 0.1 ms to read the item), and a pair's first delivery used to pay one (PartiQL cannot update a
   * missing item, so the UPDATE failed and an INSERT followed). Now a missing cursor is created
   * with an INSERT (which fails on an existing key), an existing one gets the conditional UPDATE,
   * and an attempt the cursor already refuses (superseded, or leased by a live attempt) writes
   * nothing. The conditions stay on the writes, so a cursor that changed since the read is judged
   * as before. Whatever a statement leaves undecided (a race on the INSERT, a throttle) is tried
   * once more with the single conditional UpdateItem of `acquire`; if the read fails, every
   * attempt takes the conditional UPDATE as if its cursor existed.
   */
  async acquireMany(attempts: readonly DeliveryAttempt[]): Promise<PromiseSettledResult<LeaseOutcome>[]> {
    const outcomes = new Array<Promise<LeaseOutcome> | LeaseOutcome>(attempts.length);
    const cursors = await this.readMany(attempts);
    const toUpdate: number[] = [];
    const toInsert: number[] = [];
    attempts.forEach((a, i) => {
      const cursor = cursors?.get(this.keyText(a));
      if (cursors && !cursor) toInsert.push(i);
      else if (cursor && refuses(a, cursor)) outcomes[i] = judgeHeld(a, cursor);
      else toUpdate.push(i);
    });
    const [updates, inserts] = await Promise.all([
      this.execute(
        toUpdate.map((i) => attempts[i] as DeliveryAttempt),
        (a) => ({
          Statement:
            `UPDATE "${this.tableName}" SET leaseOwner = ? SET leaseUntil = ? SET expiresAt = ? ` +
            'WHERE pk = ? AND sk = ? AND (deliveredTimeKey IS MISSING OR deliveredTimeKey < ? OR ' +
            '(deliveredTimeKey = ? AND deliveredEvent <> ?)) AND (leaseUntil IS MISSING OR leaseUntil < ?)',
          Parameters: [
            a.leaseOwner,
            a.leaseUntil,
            a.expiresAt,
            ...this.keyOf(a),
            a.timeKey,
            a.timeKey,
            a.eventKey,
            a.now,
          ],
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
      this.execute(
        toInsert.map((i) => attempts[i] as DeliveryAttempt),
        (a) => ({
          Statement: `INSERT INTO "${this.tableName}" VALUE {'pk': ?, 'sk': ?, 'leaseOwner': ?, 'leaseUntil': ?, 'expiresAt': ?}`,
          Parameters: [...this.keyOf(a), a.leaseOwner, a.leaseUntil, a.expiresAt],
        }),
      ),
    ]);
    updates.forEach((result, j) => {
      const i = toUpdate[j] as number;
      const a = attempts[i] as DeliveryAttempt;
      if (result.ok) outcomes[i] = { kind: 'acquired' };
      else if (result.code === 'ConditionalCheckFailed' && result.item)
        outcomes[i] = judgeHeld(a, result.item);
      else outcomes[i] = this.acquire(a);
    });
    inserts.forEach((result, j) => {
      const i = toInsert[j] as number;
      outcomes[i] = result.ok ? { kind: 'acquired' } : this.acquire(attempts[i] as DeliveryAttempt);
    });
    return Promise.allSettled(outcomes);
  }

  /** The attempts' cursors by key (absent: no cursor yet); undefined when the read failed. */
  private async readMany(attempts: readonly DeliveryAttempt[]): Promise<Map<string, Item> | undefined> {
    const distinct = new Map(attempts.map((a) => [this.keyText(a), a]));
    try {
      const items = await this.table.batchGet([...distinct.values()].map((a) => this.target(a).Key));
      return new Map(items.map((item) => [`${String(item.pk)}\n${String(item.sk)}`, item]));
    } catch {
      return undefined;
    }
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
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
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
            results[index] = error
              ? { ok: false, code: error.Code ?? 'Unknown', item: error.Item }
              : { ok: true };
          });
        } catch {
          for (const index of chunk) results[index] = { ok: false, code: 'RequestFailed' };
        }
      }),
    );
    return results;
  }

  private keyText(a: DeliveryAttempt): string {
    const [pk, sk] = this.keyOf(a);
    return `${pk}\n${sk}`;
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
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}

type BatchStatement = NonNullable<
  ConstructorParameters<typeof BatchExecuteStatementCommand>[0]['Statements']
>[number];

type StatementResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: string; readonly item?: Record<string, unknown> };

/** BatchExecuteStatement's limit of statements per request. */
const STATEMENTS_PER_BATCH = 25;

/** True when the cursor as read already refuses the lease (the write's own condition, negated). */
function refuses(a: DeliveryAttempt, cursor: Item): boolean {
  const delivered = typeof cursor.deliveredTimeKey === 'string' ? cursor.deliveredTimeKey : undefined;
  const newer =
    delivered === undefined ||
    delivered < a.timeKey ||
    (delivered === a.timeKey && cursor.deliveredEvent !== a.eventKey);
  const free = cursor.leaseUntil === undefined || Number(cursor.leaseUntil) < a.now;
  return !(newer && free);
}

/** Why the lease was refused, from the cursor as it was. */
function judgeHeld(a: DeliveryAttempt, current: Record<string, unknown>): LeaseOutcome {
  if (supersedes(current, a.timeKey, a.eventKey)) return { kind: 'superseded' };
  return { kind: 'leased', leaseUntil: Number(current.leaseUntil ?? a.now) };
}

/** True when the cursor has delivered this event, or one newer, already (never send it then). */
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
