/**
 * Unprocessed keys are a fault DynamoDB Local never produces (it does not throttle), so these
 * tests give DynamoTable a client that answers as a throttled table does.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../lib/errors';
import { retryPauseMs } from '../../lib/retry-pause';
import { DynamoTable } from '../../lib/store/dynamo-table';
import { translateStoreError } from '../../lib/store/store-errors';

type Key = { pk: string; sk: string };
const key = (n: number): Key => ({ pk: `K#${n}`, sk: 'S' });

/** Answers each BatchGetItem with the first `served[i]` keys and leaves the rest unprocessed. */
function throttledClient(served: number[]) {
  const calls: { keys: Key[] }[] = [];
  const client = {
    async send(command: { input: { RequestItems: Record<string, { Keys: Key[] }> } }) {
      const keys = command.input.RequestItems.t?.Keys ?? [];
      const n = served[calls.length] ?? keys.length;
      calls.push({ keys });
      return {
        Responses: { t: keys.slice(0, n) },
        UnprocessedKeys: n < keys.length ? { t: { Keys: keys.slice(n) } } : {},
      };
    },
  };
  return { table: new DynamoTable(client as unknown as DynamoDBDocumentClient, 't'), calls };
}

describe('DynamoTable.batchGet under throttling', () => {
  it('retries only the unprocessed keys, after a pause, until all are read', async () => {
    const { table, calls } = throttledClient([1, 1, 3]);
    const items = await table.batchGet([key(1), key(2), key(3), key(4)]);

    expect(items).toEqual([key(1), key(2), key(3), key(4)]);
    expect(calls.map((c) => c.keys.length)).toEqual([4, 3, 2]);
  });

  it('gives up after eight attempts with an error the API answers as 503', async () => {
    const { table, calls } = throttledClient(Array(8).fill(0));
    const error = await table.batchGet([key(1)]).catch((e: unknown) => e);

    expect(calls).toHaveLength(8);
    expect(translateStoreError(error)).toBeInstanceOf(ServiceUnavailableError);
  });
});

describe('retryPauseMs: full jitter over a growing, capped step', () => {
  it('spans 0 to 10 ms · 2^n, capped at 640 ms', () => {
    expect(retryPauseMs(1, () => 0)).toBe(0);
    expect(retryPauseMs(1, () => 1)).toBe(20);
    expect(retryPauseMs(3, () => 1)).toBe(80);
    expect(retryPauseMs(30, () => 1)).toBe(640);
    expect(retryPauseMs(2, () => 0.5)).toBe(20);
  });
});
