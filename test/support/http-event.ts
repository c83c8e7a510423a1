import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { BASE_PATH } from '../../lib/http/base-path';
import { assertDocumented } from './openapi';

/** A request body as sent: a string as it is (malformed JSON on purpose), anything else as JSON. */
export function bodyText(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

/** A real-shaped API Gateway HTTP API (payload 2.0) event, as the route would receive it. */
export function httpApiEvent(options: {
  method: string;
  /** Path after the base path, e.g. `/subscriptions/abc`; the query string may follow `?`. */
  path: string;
  routeKey?: string;
  pathParameters?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
  isBase64Encoded?: boolean;
  authorizer?: unknown;
}): APIGatewayProxyEventV2 {
  const [pathOnly = '', rawQueryString = ''] = options.path.split('?');
  const rawPath = `${BASE_PATH}${pathOnly}`;
  const query = new URLSearchParams(rawQueryString);
  const queryStringParameters = rawQueryString ? Object.fromEntries(query.entries()) : undefined;
  const body = bodyText(options.body);
  const now = new Date();
  return {
    version: '2.0',
    routeKey: options.routeKey ?? `${options.method} ${rawPath}`,
    rawPath,
    rawQueryString,
    cookies: undefined,
    headers: {
      host: 'notify.example.com',
      'x-forwarded-proto': 'https',
      'content-type': 'application/json',
      'user-agent': 'vitest',
      ...options.headers,
    },
    queryStringParameters,
    pathParameters: options.pathParameters,
    stageVariables: undefined,
    body,
    isBase64Encoded: options.isBase64Encoded ?? false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'api-id',
      domainName: 'notify.example.com',
      domainPrefix: 'notify',
      http: {
        method: options.method,
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'vitest',
      },
      requestId: `req-${Math.random().toString(36).slice(2)}`,
      routeKey: options.routeKey ?? `${options.method} ${rawPath}`,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
      ...(options.authorizer === undefined ? {} : { authorizer: options.authorizer }),
    },
  } as APIGatewayProxyEventV2;
}

export function lambdaContext(): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:test',
    memoryLimitInMB: '256',
    awsRequestId: `aws-${Math.random().toString(36).slice(2)}`,
    logGroupName: '/aws/lambda/test',
    logStreamName: 'stream',
    getRemainingTimeInMillis: () => 10_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * Invokes a handler and returns what a client would see: status, lower-cased headers, parsed body.
 * Every response must be one lib/http/openapi.json describes (test/support/openapi.ts).
 */
export async function invoke(
  handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>,
  event: APIGatewayProxyEventV2,
): Promise<{ status: number; headers: Record<string, string>; body: unknown; rawBody: string }> {
  const result = (await handler(event, lambdaContext())) as {
    statusCode: number;
    headers?: Record<string, string>;
    body?: string;
  };
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]),
  );
  const rawBody = result.body ?? '';
  assertDocumented(event.requestContext.http.method, event.rawPath, {
    status: result.statusCode,
    headers,
    rawBody,
  });
  const isJson = /json/.test(headers['content-type'] ?? '');
  return {
    status: result.statusCode,
    headers,
    body: isJson && rawBody ? JSON.parse(rawBody) : rawBody,
    rawBody,
  };
}
