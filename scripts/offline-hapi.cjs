// Preloaded into `serverless offline` (scripts/offline.mjs, `node --require`): its hapi server,
// configured to answer as the deployed HTTP API does. serverless-offline 14 builds that server with
// options of its own (node_modules/serverless-offline/src/events/http/HttpServer.js, createServer)
// and has no option or plugin hook for any of the differences below, so the one thing patched is
// the `Server` class @hapi/hapi exports, before serverless-offline imports it: a subclass that
// passes hapi's own options and registers hapi's own extension point (`onPreResponse`). No
// prototype of hapi or of Node's http is changed. It stays CommonJS because `node --require` loads
// it synchronously before serverless-offline's ESM imports of @hapi/hapi are evaluated; the hapi
// export it replaces is CommonJS too. serverless-offline 14.8.2 is the newest 14.x. Without this
// file test/e2e/offline-as-deployed.e2e.test.ts and the refusal and function-failure cases of
// test/e2e/local-run.e2e.test.ts fail.
//
// What it changes, and what a client would see without it:
// - Trailing slash: hapi strips it before routing and from rawPath (`router.stripTrailingSlash`,
//   hard-coded true), so `DELETE …/subscriptions/` reached delete-all; API Gateway keeps it and the
//   handlers refuse it (404). Upstream: https://github.com/dherault/serverless-offline/issues/1744
//   (the `noStripTrailingSlashInUrl` option was removed; open).
// - Compression: hapi gzips a response over 1 KiB when the client asks (its default); API
//   Gateway's HTTP APIs do not compress. hapi's `compression: false` turns that off; offline has
//   no option for it (no upstream issue found).
// - A function that throws outside the service's own error handling, or cannot even be loaded
//   (its bundle missing, say): API Gateway answers 500; with HTTP API payload 2.0 offline wraps the
//   error as a 200 whose body is {"errorMessage", "errorType", "stackTrace"}, so a broken local server
//   looks healthy (HttpServer.js: a result without statusCode becomes a 200; the 502 fix of
//   https://github.com/dherault/serverless-offline/issues/678 does not reach payload 2.0). Here: 503
//   with Retry-After for /health (a probe keeps waiting), 500 for every other route; the error
//   itself is on the console.
// - hapi's own refusals, before any function runs — a path that is not valid percent-encoded
//   UTF-8, a Content-Type it cannot parse, a body over 10 MiB — come as
//   {"statusCode":400,"error":"Bad Request",…} (hapi's Boom); Node's parser refuses a request line
//   or headers over 16 KiB with a bare status line (hapi's `clientError` listener). offline has no
//   option to shape either (no upstream issue found). Here: the same status, as an RFC 9457 problem
//   document saying what to fix.
// - A 204 gets `Content-Type: application/json`: offline sets it on every Lambda response that set
//   none (HttpServer.js, `response.header("Content-Type", "application/json", …)`). A 204 has no
//   content (RFC 9110 §15.3.5) and the deployed API sends none (no upstream issue found). Here:
//   dropped from 204s.
const http = require('node:http');
const { join } = require('node:path');

const hapi = require(
  require.resolve('@hapi/hapi', { paths: [join(__dirname, '../node_modules/serverless-offline')] }),
);

/** serverless offline's shape for a Lambda error: {"errorMessage": …, "errorType": …, "stackTrace": […]} */
function lambdaError(/** @type {unknown} */ source) {
  if (typeof source !== 'string' || !source.startsWith('{"errorMessage":')) return undefined;
  try {
    const parsed = JSON.parse(source);
    return typeof parsed.errorType === 'string' && Array.isArray(parsed.stackTrace) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** What to fix, for the refusals hapi words for itself. */
const REFUSALS = new Map([
  [
    'Bad Request',
    'The request could not be read: its path or query is not valid percent-encoding of UTF-8 (each % must be followed by two hex digits, and the bytes must be UTF-8)',
  ],
  ['Invalid content-type header', 'Content-Type must be one media type, e.g. application/json'],
]);

/** @param {number} status @param {string} detail */
function problemDocument(status, detail) {
  return { type: 'about:blank', title: http.STATUS_CODES[status] ?? 'Error', status, detail };
}

/**
 * The problem document to answer instead of what offline or hapi made, if any.
 * @param {any} request a hapi request, its response made
 * @returns {{ status: number, detail: string, headers: Record<string, string> } | undefined}
 */
function problemFor(request) {
  const { response } = request;
  if (response?.isBoom) {
    const { statusCode, payload } = response.output;
    const message = typeof payload.message === 'string' ? payload.message : String(payload.error);
    const detail =
      statusCode === 413
        ? 'The request body is larger than the server accepts (events and subscriptions are at most 64 KiB)'
        : (REFUSALS.get(message) ?? message);
    return { status: statusCode, detail, headers: {} };
  }
  const error = response?.statusCode === 200 ? lambdaError(response.source) : undefined;
  if (!error) return undefined;
  const detail = `The function failed outside the service's error handling (${error.errorType}); the npm start console shows why. A function that cannot be loaded needs npm start to be restarted.`;
  return /\/health$/.test(request.path)
    ? { status: 503, detail, headers: { 'retry-after': '5' } }
    : { status: 500, detail, headers: {} };
}

/**
 * hapi's `onPreResponse`: problem documents for the failures above, no Content-Type on a 204.
 * @param {any} request @param {any} h
 */
function asDeployed(request, h) {
  const problem = problemFor(request);
  if (problem) {
    const answer = h
      .response(JSON.stringify(problemDocument(problem.status, problem.detail)))
      .code(problem.status)
      .type('application/problem+json');
    for (const [name, value] of Object.entries(problem.headers)) answer.header(name, value);
    return answer;
  }
  if (!request.response.isBoom && request.response.statusCode === 204)
    delete request.response.headers['content-type'];
  return h.continue;
}

/**
 * Node's parser refuses some requests before hapi sees them (a request line or headers over
 * 16 KiB, a malformed request line); hapi's own listener answers a bare "400 Bad Request".
 * @param {Error & { code?: string }} error @param {import('node:net').Socket} socket
 */
function answerClientError(error, socket) {
  if (!socket.writable || socket.destroyed) return;
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify(
    problemDocument(
      status,
      tooLarge
        ? 'The request line and headers are longer than the server accepts (16 KiB in all): shorten the query string'
        : 'The request is not valid HTTP/1.1',
    ),
  );
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

const HapiServer = hapi.Server;
class ServerAsDeployed extends HapiServer {
  /** @param {any} options */
  constructor(options = {}) {
    super({
      ...options,
      compression: false,
      router: { ...options.router, stripTrailingSlash: false },
    });
    this.ext('onPreResponse', asDeployed);
    this.listener.removeAllListeners('clientError');
    this.listener.on('clientError', answerClientError);
  }
}
hapi.Server = ServerAsDeployed;
hapi.server = (/** @type {any} */ options) => new ServerAsDeployed(options);
