import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { ForbiddenError, PayloadTooLargeError, type Refusal, TooManyRequestsError } from '../errors';
import { logger } from '../logger';
import { type CountMetric, metricsOf } from '../metrics';
import { problemResponse } from './problem';
import type { HttpEvent } from './request';
import type { HttpResponse } from './responses';
import { assertNoEmptySegment } from './routes';

type Middleware = middy.MiddlewareObj<HttpEvent, HttpResponse, Error, Context>;

export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Every error, whatever raised it, leaves as a problem document. Registered after `requestLogging()`:
 * middy runs `onError` in reverse order of registration, so the outcome line sees the problem's status.
 */
export function problemDocuments(): Middleware {
  return {
    onError: async (request) => {
      request.response = problemResponse(request.error);
    },
  };
}

/**
 * Tags every log line of the invocation with its API request id, route and path (the Lambda
 * context's own keys come from Powertools' `injectLambdaContext`), and logs the outcome of each
 * request. The start time is kept per request: serverless offline and the tests run invocations of
 * one handler side by side.
 */
export function requestLogging(): Middleware {
  const startedAt = new WeakMap<object, number>();
  const done = (request: middy.Request<HttpEvent, HttpResponse, Error, Context>) => {
    const status = request.response?.statusCode;
    const durationMs = Date.now() - (startedAt.get(request) ?? Date.now());
    // API Gateway's access log records every request; the function logs the failures, and the
    // rest only at debug level, so that a request costs no log line it does not need.
    if (status === undefined || status >= 500) logger.warn('request', { status, durationMs });
    else logger.debug('request', { status, durationMs });
  };
  return {
    before: async (request) => {
      startedAt.set(request, Date.now());
      logger.appendKeys({
        apiRequestId: request.event.requestContext?.requestId,
        route: request.event.routeKey,
        path: request.event.rawPath,
      });
    },
    after: async (request) => done(request),
    onError: async (request) => done(request),
  };
}

/** Contract 2: bodies over 64 KiB are refused with 413 before anything parses them. */
export function bodySizeLimit(maxBytes = MAX_BODY_BYTES): Middleware {
  return {
    before: async ({ event }) => {
      if (typeof event.body !== 'string') return;
      const bytes = Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
      if (bytes > maxBytes) {
        throw new PayloadTooLargeError(
          `The request body is ${bytes} bytes; at most ${maxBytes} bytes are accepted`,
        );
      }
    },
  };
}

/** For routes whose body is optional: no body reads as `{}` rather than as malformed JSON. */
export function emptyBodyAsObject(): Middleware {
  return {
    before: async ({ event }) => {
      if (event.body === undefined || event.body === null || event.body === '') {
        event.body = '{}';
        event.isBase64Encoded = false;
      }
    },
  };
}

/** No route answers for a path with an empty segment (`lib/http/routes.ts`, `assertNoEmptySegment`). */
export function noEmptyPathSegment(): Middleware {
  return {
    before: async ({ event }) => assertNoEmptySegment(event.requestContext.http.method, event.rawPath),
  };
}

const REFUSAL_METRIC: Readonly<Record<Refusal['rule'], CountMetric>> = {
  grant: 'ProducerGrantRefusals',
  ownership: 'PublisherOwnershipRefusals',
  rate: 'PublisherRateRefusals',
  quota: 'QuotaRefusals',
};

/**
 * Each refusal by a limit (a grant, an owner, a rate, a quota: docs/security.md) is logged with
 * the principal and the address and counted. Registered after `emitMetrics()`, whose `onError`
 * flushes: middy runs `onError` in reverse order, so the count is in that flush.
 */
export function refusals(): Middleware {
  return {
    onError: async (request) => {
      const error = request.error;
      if (!(error instanceof ForbiddenError) && !(error instanceof TooManyRequestsError)) return;
      const { rule, principal, address } = error.refusal;
      logger.warn('refused', { rule, principal, address, detail: error.detail });
      metricsOf(request.context).count(REFUSAL_METRIC[rule]);
    },
  };
}
