/**
 * What DynamoDB Local reports as ConsumedCapacity (ReturnConsumedCapacity: INDEXES, asked by
 * bench/aws-calls.mjs) and where billing.ts adds AWS's billing rules to it. If DynamoDB Local
 * changes what it reports, these say so before the budgets drift.
 */
import { randomUUID } from 'node:crypto';
import { BatchGetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { type AwsCall, recordAwsCalls } from '../../bench/aws-calls.mjs';
import { documentClient } from '../../lib/store/dynamo-client';
import { billedUnits } from './billing';

const recording = recordAwsCalls(documentClient());
afterAll(() => recording.stop());
const table = () => process.env.TABLE_NAME ?? '';
const last = (): AwsCall => recording.calls.at(-1) as AwsCall;
/** What DynamoDB Local reported the last call consumed (one table: an object, or a list of one). */
const reported = (): number | undefined => [last().output?.ConsumedCapacity ?? []].flat()[0]?.CapacityUnits;
const billed = () => billedUnits(last());

describe('DynamoDB Local capacity reports, and the units AWS bills', () => {
  it('a PutItem reports its index entries: the table and two indexes, 3 write units', async () => {
    const pk = randomUUID();
    const Item = { pk, sk: 's', addrPk: pk, addrSk: 'a', listPk: pk, listSk: 'l' };
    await documentClient().send(new PutCommand({ TableName: table(), Item }));
    expect(reported()).toBe(3);
    expect(billed()).toEqual({ read: 0, write: 3 });
  });

  it('a transaction of three small updates is reported as 2 units; AWS bills 2 per item, 6', async () => {
    const update = () => ({
      Update: {
        TableName: table(),
        Key: { pk: randomUUID(), sk: 's' },
        UpdateExpression: 'SET n = :n',
        ExpressionAttributeValues: { ':n': 1 },
      },
    });
    await documentClient().send(new TransactWriteCommand({ TransactItems: [update(), update(), update()] }));
    expect(reported()).toBe(2);
    expect(billed()).toEqual({ read: 0, write: 6 });
  });

  it("a transaction's Put in two indexes: 2 for the item and 2 for each entry", async () => {
    const pk = randomUUID();
    const Item = { pk, sk: 's', addrPk: pk, addrSk: 'a', listPk: pk, listSk: 'l' };
    await documentClient().send(
      new TransactWriteCommand({ TransactItems: [{ Put: { TableName: table(), Item } }] }),
    );
    expect(billed()).toEqual({ read: 0, write: 6 });
  });

  it('a Query that finds nothing is reported as 0; AWS bills the smallest read, 0.5', async () => {
    await documentClient().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': randomUUID() },
      }),
    );
    expect(reported() ?? 0).toBe(0);
    expect(billed()).toEqual({ read: 0.5, write: 0 });
  });

  it('a BatchGetItem key that finds nothing is not reported; AWS bills it as a GetItem, 0.5', async () => {
    await documentClient().send(
      new BatchGetCommand({ RequestItems: { [table()]: { Keys: [{ pk: randomUUID(), sk: 's' }] } } }),
    );
    expect(reported() ?? 0).toBe(0);
    expect(billed()).toEqual({ read: 0.5, write: 0 });
  });
});
