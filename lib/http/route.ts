import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { Context } from 'aws-lambda';
import { logger } from '../logger';
import { emitMetrics } from '../metrics';
import { annotateTrace, inTrace, traceOfRequest, tracing } from '../tracing';
import {
  bodySizeLimit,
  emptyBodyAsObject,
  noEmptyPathSegment,
  problemDocuments,
  refusals,
  requestLogging,
} from './middleware';
import type { HttpEvent } from './request';
import type { HttpResponse } from './responses';

export type RouteHandler = (event: HttpEvent, context: Context) => Promise<HttpResponse>;

/**
 * Wraps one route's handler in the middlewares every route shares: X-Ray (lib/tracing.ts), problem
 * documents, structured logs, embedded metrics, the refusal of paths with an empty segment (unless the route reads an
 * address from its path, which has its own rules), and for JSON routes the size limit and the body
 * parser. The order matters: the Lambda context's log keys are set first and cleared last; an
 * error becomes a problem document before the outcome line is written (middy runs `onError` in
 * reverse order); a body is size-checked before it is parsed. The route runs in the request's
 * trace (`traceOfRequest`): what it enqueues for delivery carries it, and its log lines name it.
 */
export function httpRoute(
  route: RouteHandler,
  options: { jsonBody?: boolean | 'optional'; addressInPath?: boolean } = {},
) {
  const handler = middy<HttpEvent, HttpResponse, Error, Context>()
    .use(tracing())
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(requestLogging())
    .use(problemDocuments())
    .use(emitMetrics<HttpEvent, HttpResponse>())
    .use(refusals());
  if (!options.addressInPath) handler.use(noEmptyPathSegment());
  if (options.jsonBody) {
    // Content-Type is not enforced: `curl -d` sends form encoding, and the body is JSON regardless.
    // (The option exists in the middleware but is missing from its type declarations.)
    const jsonOptions = { disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0];
    handler.use(bodySizeLimit());
    if (options.jsonBody === 'optional') handler.use(emptyBodyAsObject());
    handler.use(
      httpJsonBodyParser(jsonOptions) as unknown as middy.MiddlewareObj<
        HttpEvent,
        HttpResponse,
        Error,
        Context
      >,
    );
  }
  return handler.handler((event, context) => {
    const trace = traceOfRequest(event.headers?.traceparent);
    logger.appendKeys({ traceId: trace.traceId });
    annotateTrace(trace);
    return inTrace(trace, () => route(event, context));
  });
}
