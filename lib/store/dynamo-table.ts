import { type AttributeValue, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { pauseBeforeRetry } from '../retry-pause';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
export type Item = Record<string, unknown>;

export interface CancellationReason {
  Code?: string;
  Item?: Item;
}

const TRANSACTION_ATTEMPTS = 12;
const BATCH_GET_ATTEMPTS = 8;

/**
 * The one table and the ways every store uses it: consistent reads, paged queries, transactions
 * that retry conflicts, counter updates. There is one store per part of the domain, all built on
 * this, so that a function's bundle holds only the store its handler uses.
 */
export class DynamoTable {
  constructor(
    readonly client: DynamoDBDocumentClient,
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

  /** One page of a query, and the key to read the next one from (undefined after the last). */
  async page(
    query: Omit<QueryCommandInput, 'TableName'>,
    startKey?: Item,
  ): Promise<{ items: Item[]; next: Item | undefined }> {
    const result = await this.client.send(
      new QueryCommand({ ...query, TableName: this.name, ExclusiveStartKey: startKey }),
    );
    return { items: result.Items ?? [], next: result.LastEvaluatedKey };
  }

  async *pages(query: Omit<QueryCommandInput, 'TableName'>): AsyncIterable<Item[]> {
    let startKey: Item | undefined;
    do {
      const result = await this.client.send(
        new QueryCommand({ ...query, TableName: this.name, ExclusiveStartKey: startKey }),
      );
      yield result.Items ?? [];
      startKey = result.LastEvaluatedKey;
    } while (startKey);
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
        // exception (isConditionFailure in conditional-write.ts).
        const conditionFailed = reasons.some((r) => r.Code === 'ConditionalCheckFailed');
        if (conditionFailed) return reasons;
        if (!conflicted || attempt >= TRANSACTION_ATTEMPTS) throw error;
        await pauseBeforeRetry(attempt);
      }
    }
  }
}

/** Named as DynamoDB names throttling, so that it is answered as the store's 503. */
class UnprocessedKeysError extends Error {
  override readonly name = 'ProvisionedThroughputExceededException';
  constructor(count: number) {
    super(`DynamoDB left ${count} keys unprocessed after ${BATCH_GET_ATTEMPTS} attempts`);
  }
}
