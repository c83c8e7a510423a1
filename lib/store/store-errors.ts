import { ServiceUnavailableError } from '../errors';

const UNAVAILABLE = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionInProgressException',
  // A single write that met a transaction on its item (a publish and its publisher's delete).
  'TransactionConflictException',
  'TimeoutError',
  'RequestTimeout',
  'ResourceNotFoundException',
]);

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Throttling, an unreachable store, a missing table and the store's own failures (any server
 * fault: DynamoDB's InternalServerError, DynamoDB Local's InternalFailure) become a 503 with
 * Retry-After, once the client's retries are spent; bugs stay bugs.
 */
export function translateStoreError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: string }).code;
  const serverFault = (error as { $fault?: string }).$fault === 'server';
  if (serverFault || UNAVAILABLE.has(error.name) || (code && NETWORK_CODES.has(code))) {
    return new ServiceUnavailableError('The data store is unavailable or throttling; retry shortly', 1, {
      cause: error,
    });
  }
  return error;
}
