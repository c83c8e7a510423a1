/**
 * vitest setupFiles entry: runs in every test worker before each test file is imported, so
 * lib/ modules that read their configuration at import time see the DynamoDB Local started by
 * dynamodb.ts (globalSetup).
 */
import { inject } from 'vitest';

export function useTestTable(): { endpoint: string; tableName: string } {
  const endpoint = inject('dynamoEndpoint');
  const tableName = inject('dynamoTableName');
  if (!endpoint || !tableName) {
    throw new Error(
      'No DynamoDB Local: add test/support/dynamodb.ts to test.globalSetup in vitest.config.ts',
    );
  }
  process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
  process.env.TABLE_NAME = tableName;
  return { endpoint, tableName };
}

useTestTable();
