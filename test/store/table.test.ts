import { DescribeTableCommand, DescribeTimeToLiveCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';

describe('DynamoDB Local from globalSetup', () => {
  const client = new DynamoDBClient({ endpoint: inject('dynamoEndpoint') });
  afterAll(() => client.destroy());

  it('is in process.env before the test file is imported', () => {
    expect(process.env.AWS_ENDPOINT_URL_DYNAMODB).toBe(inject('dynamoEndpoint'));
    expect(process.env.TABLE_NAME).toMatch(/^test-[0-9a-f]{8}$/);
  });

  it('has the table with its three global secondary indexes and TTL', async () => {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: process.env.TABLE_NAME }));
    expect(Table?.TableStatus).toBe('ACTIVE');
    expect(Table?.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    const indexes = Object.fromEntries(
      (Table?.GlobalSecondaryIndexes ?? []).map((index) => [
        index.IndexName,
        index.Projection?.ProjectionType,
      ]),
    );
    expect(indexes).toEqual({ byAddress: 'ALL', publisherTree: 'INCLUDE', byList: 'ALL' });

    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: process.env.TABLE_NAME }));
    expect(ttl.TimeToLiveDescription).toMatchObject({
      TimeToLiveStatus: 'ENABLED',
      AttributeName: 'expiresAt',
    });
  });
});
