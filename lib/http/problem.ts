import {
  BadRequestError,
  ConflictError,
  type ErrorKind,
  MethodNotAllowedError,
  ServiceError,
  ServiceUnavailableError,
  TooManyRequestsError,
} from '../errors';
import { logger } from '../logger';
import type { HttpResponse } from './responses';

/** The one mapping from errors to RFC 9457 problem documents. Unknown errors leak nothing. */
export function problemResponse(error: unknown): HttpResponse {
  const known = asServiceError(error);
  if (!known) {
    logger.error('unhandled error', { error });
    return problem(500, 'Internal Server Error', 'An unexpected error occurred; it has been logged', {});
  }
  const { status, title } = STATUS[known.kind];
  if (status >= 500) logger.warn('request failed', { status, error: known.cause ?? known });
  return problem(status, title, known.detail, headersOf(known));
}

/** Each kind of error as HTTP says it. */
export const STATUS: Readonly<Record<ErrorKind, { status: number; title: string }>> = {
  invalid: { status: 400, title: 'Bad Request' },
  unauthenticated: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  'not-found': { status: 404, title: 'Not Found' },
  'method-not-allowed': { status: 405, title: 'Method Not Allowed' },
  conflict: { status: 409, title: 'Conflict' },
  'too-large': { status: 413, title: 'Payload Too Large' },
  'too-many': { status: 429, title: 'Too Many Requests' },
  unavailable: { status: 503, title: 'Service Unavailable' },
};

function headersOf(error: ServiceError): Record<string, string> {
  if (error instanceof ConflictError) return { Location: error.location };
  if (error instanceof MethodNotAllowedError) return { Allow: error.allowed.join(', ') };
  if (error instanceof TooManyRequestsError) return { 'Retry-After': String(error.retryAfterSeconds) };
  if (error instanceof ServiceUnavailableError) return { 'Retry-After': String(error.retryAfterSeconds) };
  return {};
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
