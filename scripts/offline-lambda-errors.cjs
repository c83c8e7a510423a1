// Preloaded into `serverless offline` (scripts/offline.mjs). When a function throws outside the
// service's own error handling, or cannot even be loaded (its bundle missing, say), API Gateway
// answers 500; serverless offline instead answers 200 with the error as a JSON body, so a broken
// local server looks healthy. This turns that answer into a problem document: 503 with
// Retry-After for /health (a load balancer or a test waiting for readiness keeps waiting), 500 for
// every other route. The error itself is on the npm start console, where offline logs it.
const http = require('node:http');

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
  const error = this.statusCode === 200 ? lambdaError(chunk) : undefined;
  if (!error) {
    if (deferred) writeHead.apply(this, /** @type {any} */ (deferred));
    return chunk;
  }
  const health = /\/health\/?(\?|$)/.test(this.req?.url ?? '');
  const status = health ? 503 : 500;
  const body = JSON.stringify({
    type: 'about:blank',
    title: health ? 'Service Unavailable' : 'Internal Server Error',
    status,
    detail: `The function failed outside the service's error handling (${error.errorType}); the npm start console shows why. A function that cannot be loaded needs npm start to be restarted.`,
  });
  const headers = {
    'content-type': 'application/problem+json',
    'content-length': String(Buffer.byteLength(body)),
    ...(health ? { 'retry-after': '5' } : {}),
  };
  for (const name of this.getHeaderNames()) this.removeHeader(name);
  writeHead.call(this, status, headers);
  return body;
}

/**
 * @this {import('node:http').ServerResponse & { [pending]?: unknown[], [checked]?: boolean }}
 * @param {number} statusCode
 * @param {...any} rest writeHead's own overloads, passed on untouched
 */
http.ServerResponse.prototype.writeHead = function deferUntilBody(statusCode, ...rest) {
  if (statusCode === 200 && !this[checked]) {
    this.statusCode = 200;
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
