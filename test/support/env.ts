/**
 * vitest setupFiles entry: runs in every test worker before each test file is imported, so
 * lib/ modules that read their configuration at import time see the DynamoDB Local started by
 * dynamodb.ts (globalSetup). Each test file gets a table of its own, so that table-wide results
 * (list all, delete all, the counters) belong to that file alone.
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { localDataKey } from '../../lib/secrets/local-data-key';
import { AesGcmSecretBox } from '../../lib/secrets/secret-box';
import { ensureTable } from '../../scripts/dynamodb-local';

const endpoint = inject('dynamoEndpoint');
if (!endpoint) {
  throw new Error('No DynamoDB Local: add test/support/dynamodb.ts to test.globalSetup in vitest.config.mts');
}
const tableName = `test-${randomUUID().slice(0, 8)}`;
await ensureTable({ endpoint, tableName });
process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
process.env.TABLE_NAME = tableName;
// The data key that encrypts signing secrets, outside the working tree (npm start keeps its own in .data/).
process.env.SIGNING_KEY_FILE ??= join(tmpdir(), `ocloud-test-signing-key-${process.pid}`);

export const testTable = { endpoint, tableName };

/** A box over the same data key file as the functions' (SIGNING_KEY_FILE): what they seal, it opens. */
export function testSecretBox(): AesGcmSecretBox {
  return new AesGcmSecretBox(localDataKey(process.env.SIGNING_KEY_FILE ?? ''));
}
