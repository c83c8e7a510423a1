// Preloaded into `serverless offline` (scripts/offline.mjs): every answer the local server gives is
// one a client of the deployed API could get, as an RFC 9457 problem document.
// - A function that throws outside the service's own error handling, or cannot even be loaded
//   (its bundle missing, say): API Gateway answers 500; offline answers 200 with the error as a
//   JSON body, so a broken local server looks healthy. Here: 503 with Retry-After for /health (a
//   probe keeps waiting), 500 for every other route. The error itself is on the console.
// - offline's (hapi's) own refusals, before any function runs — a path that is not valid
//   percent-encoded UTF-8, a Content-Type it cannot parse, a body over 10 MiB — come as
//   {"statusCode":400,"error":"Bad Request",…}; Node's parser refuses a request line or headers
//   over 16 KiB with a bare status line. Here: the same status, as a problem document saying what
//   to fix.
const http = require('node:http');
const { join } = require('node:path');

// hapi strips a trailing slash before routing and from rawPath (`router.stripTrailingSlash`), so
// `DELETE …/subscriptions/` reached delete-all; API Gateway keeps it, and the handlers refuse it.
const hapi = require(
  require.resolve('@hapi/hapi', { paths: [join(__dirname, '../node_modules/serverless-offline')] }),
);
const HapiServer = hapi.Server;
hapi.Server = hapi.server = class ServerKeepingTrailingSlash extends HapiServer {
  /** @param {any} options */
  constructor(options = {}) {
    super({ ...options, router: { ...options.router, stripTrailingSlash: false } });
  }
};

// API Gateway's HTTP APIs do not compress responses; serverless offline (hapi) gzips them when the
// client asks, which would also hide the body checked below. Served as the deployed API is.
const emit = http.Server.prototype.emit;
/**
 * @this {import('node:http').Server}
 * @param {string | symbol} event
 * @param {...any} args
 */
http.Server.prototype.emit = function withoutCompression(event, ...args) {
  if (event === 'request' && args[0]?.headers) delete args[0].headers['accept-encoding'];
  return /** @type {any} */ (emit).call(this, event, ...args);
};

const pending = Symbol('deferred writeHead');
const checked = Symbol('body checked');
const { writeHead, write, end } = http.ServerResponse.prototype;

/** serverless offline's shape for a Lambda error: {"errorMessage": …, "errorType": …, "stackTrace": […]} */
function lambdaError(/** @type {unknown} */ chunk) {
  if (chunk === undefined || chunk === null || typeof chunk === 'function') return undefined;
  const text = Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
  if (!text.startsWith('{"errorMessage":')) return undefined;
  try {
    const parsed = JSON.parse(text);
    return typeof parsed.errorType === 'string' && Array.isArray(parsed.stackTrace) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * @this {import('node:http').ServerResponse & { [pending]?: unknown[], [checked]?: boolean }}
 * @param {unknown} chunk the first chunk of the body
 * @returns {unknown} the chunk to send instead
 */
function settle(chunk) {
  this[checked] = true;
  const deferred = this[pending];
  this[pending] = undefined;
  const problem = this.statusCode === 200 ? functionFailure(this, chunk) : offlineRefusal(chunk);
  if (!problem) {
    if (deferred) writeHead.apply(this, /** @type {any} */ (deferred));
    return chunk;
  }
  const body = JSON.stringify(problem.document);
  for (const name of this.getHeaderNames()) this.removeHeader(name);
  writeHead.call(this, problem.document.status, {
    'content-type': 'application/problem+json',
    'content-length': String(Buffer.byteLength(body)),
    ...problem.headers,
  });
  return body;
}

/**
 * @param {import('node:http').ServerResponse} response
 * @param {unknown} chunk
 */
function functionFailure(response, chunk) {
  const error = lambdaError(chunk);
  if (!error) return undefined;
  const health = /\/health(\?|$)/.test(response.req?.url ?? '');
  const detail = `The function failed outside the service's error handling (${error.errorType}); the npm start console shows why. A function that cannot be loaded needs npm start to be restarted.`;
  return health
    ? { document: problemDocument(503, detail), headers: { 'retry-after': '5' } }
    : { document: problemDocument(500, detail), headers: {} };
}

/** What to fix, for the refusals hapi words for itself. */
const REFUSALS = new Map([
  [
    'Bad Request',
    'The request could not be read: its path or query is not valid percent-encoding of UTF-8 (each % must be followed by two hex digits, and the bytes must be UTF-8)',
  ],
  ['Invalid content-type header', 'Content-Type must be one media type, e.g. application/json'],
]);

/** hapi's {"statusCode": …, "error": …, "message": …}, which no function of the service answers. */
function offlineRefusal(/** @type {unknown} */ chunk) {
  if (chunk === undefined || chunk === null || typeof chunk === 'function') return undefined;
  const text = Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
  if (!text.startsWith('{"statusCode":')) return undefined;
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed.statusCode !== 'number' || typeof parsed.error !== 'string' || parsed.statusCode < 400)
    return undefined;
  const message = typeof parsed.message === 'string' ? parsed.message : parsed.error;
  const detail =
    parsed.statusCode === 413
      ? 'The request body is larger than the server accepts (events and subscriptions are at most 64 KiB)'
      : (REFUSALS.get(message) ?? message);
  return { document: problemDocument(parsed.statusCode, detail), headers: {} };
}

/** @param {number} status @param {string} detail */
function problemDocument(status, detail) {
  return { type: 'about:blank', title: http.STATUS_CODES[status] ?? 'Error', status, detail };
}

// Node's HTTP parser refuses some requests before any handler sees them (a request line or headers
// over 16 KiB, a malformed request line) and answers a bare "400 Bad Request" status line.
const serverEmit = http.Server.prototype.emit;
/**
 * @this {import('node:http').Server}
 * @param {string | symbol} event
 * @param {...any} args
 */
function answerClientErrors(event, ...args) {
  if (event === 'clientError') {
    const [error, socket] = /** @type {[Error & { code?: string }, import('node:net').Socket]} */ (args);
    if (socket.writable && !socket.destroyed) {
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
    return true;
  }
  return /** @type {any} */ (serverEmit).call(this, event, ...args);
}
http.Server.prototype.emit = answerClientErrors;

/**
 * @this {import('node:http').ServerResponse & { [pending]?: unknown[], [checked]?: boolean }}
 * @param {number} statusCode
 * @param {...any} rest writeHead's own overloads, passed on untouched
 */
http.ServerResponse.prototype.writeHead = function deferUntilBody(statusCode, ...rest) {
  if (statusCode !== 204 && statusCode !== 304 && statusCode >= 200 && !this[checked]) {
    this.statusCode = statusCode;
    this[pending] = [statusCode, ...rest];
    return this;
  }
  return writeHead.call(this, statusCode, ...rest);
};

/**
 * @this {import('node:http').ServerResponse & { [pending]?: unknown[], [checked]?: boolean }}
 * @param {any} chunk
 * @param {...any} rest
 */
http.ServerResponse.prototype.write = function checkFirstChunk(chunk, ...rest) {
  return /** @type {any} */ (write).call(this, this[checked] ? chunk : settle.call(this, chunk), ...rest);
};

/**
 * @this {import('node:http').ServerResponse & { [pending]?: unknown[], [checked]?: boolean }}
 * @param {any} chunk
 * @param {...any} rest
 */
http.ServerResponse.prototype.end = function checkOnlyChunk(chunk, ...rest) {
  /** @type {any} */
  const original = end;
  if (this[checked]) return original.call(this, chunk, ...rest);
  const replaced = settle.call(this, typeof chunk === 'function' ? undefined : chunk);
  return typeof chunk === 'function'
    ? original.call(this, chunk, ...rest)
    : original.call(this, replaced, ...rest);
};
