import { BadRequestError, ServiceError } from '../errors';
import { logger } from '../logger';
import type { HttpResponse } from './responses';

/** The one mapping from errors to RFC 9457 problem documents. Unknown errors leak nothing. */
export function problemResponse(error: unknown): HttpResponse {
  const known = asServiceError(error);
  if (!known) {
    logger.error('unhandled error', { error });
    return problem(500, 'Internal Server Error', 'An unexpected error occurred; it has been logged', {});
  }
  if (known.status >= 500)
    logger.warn('request failed', { status: known.status, error: known.cause ?? known });
  return problem(known.status, known.title, known.detail, known.headers);
}

function problem(
  status: number,
  title: string,
  detail: string,
  headers: Record<string, string>,
): HttpResponse {
  return {
    statusCode: status,
    headers: { ...headers, 'Content-Type': 'application/problem+json' },
    body: JSON.stringify({ type: 'about:blank', title, status, detail }),
  };
}

function asServiceError(error: unknown): ServiceError | undefined {
  if (error instanceof ServiceError) return error;
  // middy's JSON body parser reports malformed JSON as a 415; the contract calls it a 400.
  const cause = (error as { cause?: { package?: string } } | undefined)?.cause;
  if (cause?.package === '@middy/http-json-body-parser') {
    return new BadRequestError('The request body must be valid JSON');
  }
  return undefined;
}
