import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';

const client = new DynamoDBClient({});
export const handler = async () => {
  const result = await client.send(
    new GetItemCommand({
      TableName: process.env.TABLE_NAME,
      Key: { pk: { S: 'HEALTH' }, sk: { S: 'HEALTH' } },
    }),
  );
  return { statusCode: 200, headers: { 'Content-Type': 'text/plain' }, body: result.Item ? 'found' : 'OK' };
};
