import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  BadRequestError,
  ConflictError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  type ServiceError,
  ServiceUnavailableError,
  UnauthorizedError,
} from '../../lib/errors';
import { problemResponse } from '../../lib/http/problem';

describe('problemResponse: the one mapping of domain error kinds to HTTP', () => {
  // 5xx are logged (warnings, to stderr): keep the test output to the test's own.
  beforeEach(() => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    return () => vi.restoreAllMocks();
  });

  it.each([
    [new BadRequestError('fix x'), 400, 'Bad Request', {}],
    [new UnauthorizedError('who?'), 401, 'Unauthorized', {}],
    [new NotFoundError('no such'), 404, 'Not Found', {}],
    [
      new MethodNotAllowedError('not here', ['GET', 'DELETE']),
      405,
      'Method Not Allowed',
      { Allow: 'GET, DELETE' },
    ],
    [new ConflictError('exists', 'https://x/y'), 409, 'Conflict', { Location: 'https://x/y' }],
    [new PayloadTooLargeError('too big'), 413, 'Payload Too Large', {}],
    [new ServiceUnavailableError('later', 7), 503, 'Service Unavailable', { 'Retry-After': '7' }],
  ] as [ServiceError, number, string, Record<string, string>][])(
    '%o → %i %s',
    (error, status, title, headers) => {
      const response = problemResponse(error);
      expect(response.statusCode).toBe(status);
      expect(response.headers).toEqual({ ...headers, 'Content-Type': 'application/problem+json' });
      expect(JSON.parse(response.body ?? '')).toEqual({
        type: 'about:blank',
        title,
        status,
        detail: error.detail,
      });
    },
  );

  it('an unknown error is a 500 that leaks nothing', () => {
    const response = problemResponse(new Error('secret table name'));
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('secret');
  });
});
