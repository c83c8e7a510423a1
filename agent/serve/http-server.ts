/**
 * The node's HTTP front: what API Gateway's HTTP API does in the region, for the same handlers.
 * Each request becomes the payload 2.0 event API Gateway would give the route's function (its
 * path percent-decoded, the route's path parameters, lower-cased headers), and the function's
 * answer goes back as it is. HEAD takes GET's route and sends no body. What the gateway itself
 * refuses before any function runs (a path that is not percent-encoded UTF-8, a body too large to
 * read) is a problem document here too, as `npm start` answers it (scripts/offline-hapi.cjs).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';
import type { HttpEvent } from '../../lib/http/request';
import type { HttpResponse } from '../../lib/http/responses';
import { type RouteKey, routeFor } from '../../lib/http/routes';
import type { HttpHandler } from './api-routes';

/** Beyond the 64 KiB a route takes (its 413 says so), a body is not even read. */
const MAX_READ_BYTES = 1024 * 1024;
/** What a function may take, as its Lambda time-out gives it (serverless.yml: 29 s, the HTTP API's limit). */
const FUNCTION_TIMEOUT_MS = 29_000;

export interface NodeHttpServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startHttpServer(options: {
  host: string;
  port: number;
  handlerFor: (key: RouteKey | undefined) => HttpHandler;
  log: (line: string) => void;
}): Promise<NodeHttpServer> {
  const server = http.createServer((request, response) => {
    answer(request, options.handlerFor)
      .catch((error: unknown) => {
        options.log(`node API: ${request.method} ${request.url} failed: ${String(error)}`);
        return problem(500, 'The node agent failed to answer; its log says why');
      })
      .then((result) => send(response, request.method === 'HEAD', result));
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function answer(
  request: http.IncomingMessage,
  handlerFor: (key: RouteKey | undefined) => HttpHandler,
): Promise<HttpResponse> {
  const method = request.method ?? 'GET';
  const target = new URL(request.url ?? '/', 'http://node');
  let rawPath: string;
  try {
    rawPath = decodeURIComponent(target.pathname);
  } catch {
    return problem(
      400,
      'The request could not be read: its path is not valid percent-encoding of UTF-8 (each % must be followed by two hex digits, and the bytes must be UTF-8)',
    );
  }
  const body = await readBody(request);
  if (body === undefined) {
    return problem(
      413,
      'The request body is larger than the server accepts (events and subscriptions are at most 64 KiB)',
    );
  }
  const route = routeFor(method, rawPath);
  const now = new Date();
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(',') : (value ?? ''),
    ]),
  );
  const query = [...target.searchParams.entries()];
  const requestId = randomUUID();
  const event: HttpEvent = {
    version: '2.0',
    routeKey: route ? route.key : '$default',
    rawPath,
    rawQueryString: target.search.slice(1),
    headers,
    ...(query.length > 0 ? { queryStringParameters: Object.fromEntries(query) } : {}),
    ...(route && Object.keys(route.pathParameters).length > 0
      ? { pathParameters: route.pathParameters }
      : {}),
    body: body.length > 0 ? body.toString('utf8') : undefined,
    isBase64Encoded: false,
    requestContext: {
      accountId: 'node',
      apiId: 'node',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'node',
      http: {
        method,
        path: rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: route ? route.key : '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
  };
  return handlerFor(route?.key)(event, invocationContext(requestId));
}

/** The body, or undefined when it is larger than is worth reading. */
async function readBody(request: http.IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_READ_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** What a Lambda invocation's context carries, for the handlers' logger and time budget. */
export function invocationContext(requestId: string, timeoutMs = FUNCTION_TIMEOUT_MS): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'ocloud-node-agent',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'node',
    memoryLimitInMB: '0',
    awsRequestId: requestId,
    logGroupName: 'node',
    logStreamName: 'node',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function problem(status: number, detail: string): HttpResponse {
  return {
    statusCode: status,
    headers: { 'Content-Type': 'application/problem+json' },
    body: JSON.stringify({
      type: 'about:blank',
      title: http.STATUS_CODES[status] ?? 'Error',
      status,
      detail,
    }),
  };
}

function send(response: http.ServerResponse, head: boolean, result: HttpResponse): void {
  const status = result.statusCode ?? 200;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  const body =
    result.body === undefined
      ? Buffer.alloc(0)
      : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  if (status !== 204 && status !== 304) headers['Content-Length'] = String(body.length);
  response.writeHead(status, headers);
  response.end(head || status === 204 ? undefined : body);
}
