import {
  type AttributeValue,
  ConditionalCheckFailedException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  BatchExecuteStatementCommand,
  type BatchExecuteStatementCommandInput,
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  type DeleteCommandInput,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  type PutCommandInput,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Page, PageRequest } from '../domain/model';
import { pauseBeforeRetry } from '../retry-pause';
import { keys } from './keys';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
export type Item = Record<string, unknown>;
export type Query = Omit<QueryCommandInput, 'TableName'>;
export type Statement = NonNullable<BatchExecuteStatementCommandInput['Statements']>[number];

export interface CancellationReason {
  Code?: string;
  Item?: Item;
}

/** A conditional write's outcome: written, or refused with the item as it was (empty when absent). */
export type WriteOutcome = { readonly written: true } | { readonly written: false; readonly current: Item };

const TRANSACTION_ATTEMPTS = 12;
const BATCH_GET_ATTEMPTS = 8;
const BATCH_WRITE_ATTEMPTS = 8;
/** BatchWriteItem's limit of requests per call. */
const DELETES_PER_BATCH = 25;

/**
 * The one table and every operation the stores make on it: consistent reads, paged queries,
 * conditional writes, batches that retry what throttling leaves unprocessed, transactions that
 * retry conflicts. The stores (one per aggregate) say what to read and write; only this class
 * sends, so a failed condition is recognised in one place.
 */
export class DynamoTable {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly name: string,
  ) {}

  async get(key: Item): Promise<Item | undefined> {
    // DynamoDB refuses a sort key over 1,024 bytes or a partition key over 2,048; no item has one,
    // so such a key (an over-long id in a path) finds nothing rather than failing the request.
    if (Buffer.byteLength(String(key.pk)) > 2048 || Buffer.byteLength(String(key.sk)) > 1024)
      return undefined;
    const result = await this.client.send(
      new GetCommand({ TableName: this.name, Key: key, ConsistentRead: true }),
    );
    return result.Item;
  }

  /** Whether the table answers: one eventually consistent read of the health item (GET /health). */
  async ping(): Promise<void> {
    await this.client.send(new GetCommand({ TableName: this.name, Key: keys.health }));
  }

  /**
   * Consistent reads of any number of keys, in batches of 100. DynamoDB leaves keys unprocessed
   * when the table is throttling: retry those after a jittered, growing pause (an immediate retry
   * would only add to the load), and give up as throttled when they stay unprocessed.
   */
  async batchGet(keysToRead: Item[]): Promise<Item[]> {
    const items: Item[] = [];
    for (let start = 0; start < keysToRead.length; start += 100) {
      let batch = keysToRead.slice(start, start + 100);
      for (let attempt = 1; batch.length > 0; attempt++) {
        if (attempt > 1) await pauseBeforeRetry(attempt - 1);
        const result = await this.client.send(
          new BatchGetCommand({ RequestItems: { [this.name]: { Keys: batch, ConsistentRead: true } } }),
        );
        items.push(...(result.Responses?.[this.name] ?? []));
        batch = (result.UnprocessedKeys?.[this.name]?.Keys as Item[] | undefined) ?? [];
        if (batch.length > 0 && attempt >= BATCH_GET_ATTEMPTS) throw new UnprocessedKeysError(batch.length);
      }
    }
    return items;
  }

  /** Deletes by key, 25 to a BatchWriteItem, retrying what DynamoDB leaves unprocessed (throttling). */
  async batchDelete(keysToDelete: readonly Item[]): Promise<void> {
    for (let start = 0; start < keysToDelete.length; start += DELETES_PER_BATCH) {
      let requests = keysToDelete
        .slice(start, start + DELETES_PER_BATCH)
        .map((key) => ({ DeleteRequest: { Key: key } }));
      for (let attempt = 1; requests.length > 0; attempt++) {
        if (attempt > BATCH_WRITE_ATTEMPTS) throw new Error(`${requests.length} deletes left unprocessed`);
        if (attempt > 1) await pauseBeforeRetry(attempt - 1);
        const result = await this.client.send(
          new BatchWriteCommand({ RequestItems: { [this.name]: requests } }),
        );
        requests = (result.UnprocessedItems?.[this.name] ?? []) as typeof requests;
      }
    }
  }

  /** One page of a query, and the key to read the next one from (undefined after the last). */
  async page(query: Query, startKey?: Item): Promise<{ items: Item[]; next: Item | undefined }> {
    const result = await this.client.send(
      new QueryCommand({ ...query, TableName: this.name, ExclusiveStartKey: startKey }),
    );
    return { items: result.Items ?? [], next: result.LastEvaluatedKey };
  }

  async *pages(query: Query): AsyncIterable<Item[]> {
    let startKey: Item | undefined;
    do {
      const { items, next } = await this.page(query, startKey);
      yield items;
      startKey = next;
    } while (startKey);
  }

  /**
   * One page of a list as the API pages it: at most `request.limit` items, and `next` only when
   * more follow (one item more is asked for, so a list that fits one page has no next).
   * `keyAttributes` are the table's and the index's key attributes, which make a position.
   */
  async listPage(query: Query, request: PageRequest, keyAttributes: readonly string[]): Promise<Page<Item>> {
    const { items, next } = await this.page(
      { ...query, Limit: request.limit + 1 },
      request.after as Item | undefined,
    );
    const last = items[request.limit - 1];
    if (items.length <= request.limit || !last) return { items, next };
    return {
      items: items.slice(0, request.limit),
      next: Object.fromEntries(keyAttributes.map((name) => [name, last[name]])),
    };
  }

  /** A put: true when written, false when its condition (if it has one) failed. */
  put(input: Omit<PutCommandInput, 'TableName'>): Promise<boolean> {
    return conditionHeld(this.client.send(new PutCommand({ ...input, TableName: this.name })));
  }

  /** An update: true when written, false when its condition (if it has one) failed. */
  async update(input: Omit<UpdateCommandInput, 'TableName'>): Promise<boolean> {
    return (await this.tryUpdate(input)).written;
  }

  /**
   * An update that says, when its condition failed, what the item was (with
   * `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`; empty otherwise or when there was none).
   */
  async tryUpdate(input: Omit<UpdateCommandInput, 'TableName'>): Promise<WriteOutcome> {
    try {
      await this.client.send(new UpdateCommand({ ...input, TableName: this.name }));
      return { written: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return { written: false, current: error.Item ? unmarshall(error.Item) : {} };
    }
  }

  /** A delete: true when done, false when its condition (if it has one) failed. */
  delete(input: Omit<DeleteCommandInput, 'TableName'>): Promise<boolean> {
    return conditionHeld(this.client.send(new DeleteCommand({ ...input, TableName: this.name })));
  }

  /**
   * Up to 25 PartiQL statements in one BatchExecuteStatement; each statement's error code, or
   * undefined where it succeeded. A failure of the whole request is thrown.
   */
  async executeStatements(statements: Statement[]): Promise<(string | undefined)[]> {
    const { Responses = [] } = await this.client.send(
      new BatchExecuteStatementCommand({ Statements: statements }),
    );
    return statements.map((_, i) => {
      const error = Responses[i]?.Error;
      return error ? (error.Code ?? 'Unknown') : undefined;
    });
  }

  /**
   * Runs a transaction, retrying conflicts with concurrent transactions. Returns undefined on
   * success, or the cancellation reasons (one per item) when a condition failed.
   */
  async transact(items: TransactItem[]): Promise<CancellationReason[] | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.send(new TransactWriteCommand({ TransactItems: items }));
        return undefined;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        // The document client does not unmarshal the items in cancellation reasons.
        const reasons: CancellationReason[] = (error.CancellationReasons ?? []).map((reason) => ({
          Code: reason.Code,
          Item: reason.Item && unmarshall(reason.Item as Record<string, AttributeValue>),
        }));
        const conflicted = reasons.some((r) => r.Code === 'TransactionConflict');
        // A transaction's failed condition is a cancellation reason, not the single write's
        // exception (isConditionFailure below).
        const conditionFailed = reasons.some((r) => r.Code === 'ConditionalCheckFailed');
        if (conditionFailed) return reasons;
        if (!conflicted || attempt >= TRANSACTION_ATTEMPTS) throw error;
        await pauseBeforeRetry(attempt);
      }
    }
  }
}

/** True when the write was made, false when its condition failed; any other failure is thrown. */
async function conditionHeld(sending: Promise<unknown>): Promise<boolean> {
  try {
    await sending;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * The one test of a single write's failed condition. (A transaction's failed condition is a
 * cancellation reason instead, `ConditionalCheckFailed`, read in `DynamoTable.transact`.)
 */
function isConditionFailure(error: unknown): error is ConditionalCheckFailedException {
  return error instanceof ConditionalCheckFailedException;
}

/** Named as DynamoDB names throttling, so that it is answered as the store's 503. */
class UnprocessedKeysError extends Error {
  override readonly name = 'ProvisionedThroughputExceededException';
  constructor(count: number) {
    super(`DynamoDB left ${count} keys unprocessed after ${BATCH_GET_ATTEMPTS} attempts`);
  }
}
