import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { traced } from '../tracing';
import { translateStoreError } from './store-errors';

/**
 * One client per process, built on first use. Time-outs are short so that a store that does not
 * answer turns into a quick 503 rather than a Lambda time-out; every call's failure passes through
 * `translateStoreError`, so no caller has to remember to.
 */
let client: DynamoDBDocumentClient | undefined;

export function documentClient(): DynamoDBDocumentClient {
  if (client) return client;
  const base = traced(
    new DynamoDBClient({
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 1000, requestTimeout: 3000 },
    }),
  );
  base.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        throw translateStoreError(error);
      }
    },
    { step: 'initialize', name: 'translateStoreErrors' },
  );
  client = DynamoDBDocumentClient.from(base, { marshallOptions: { removeUndefinedValues: true } });
  return client;
}
