/**
 * vitest globalSetup: one in-memory DynamoDB Local for the whole run, with the service table.
 * Test files get its endpoint and table name through `inject` (see env.ts, a setupFiles entry).
 */
import type { TestProject } from 'vitest/node';
import { ensureTable, startDynamoDbLocal } from '../../scripts/dynamodb-local';

export const TEST_TABLE_NAME = 'ocloud-notifications-test';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    dynamoTableName: string;
  }
}

export default async function setup(project: TestProject) {
  const db = await startDynamoDbLocal({ inMemory: true, quiet: true });
  try {
    await ensureTable({ endpoint: db.endpoint, tableName: TEST_TABLE_NAME });
  } catch (error) {
    await db.stop();
    throw error;
  }
  project.provide('dynamoEndpoint', db.endpoint);
  project.provide('dynamoTableName', TEST_TABLE_NAME);
  return async () => {
    await db.stop();
  };
}
