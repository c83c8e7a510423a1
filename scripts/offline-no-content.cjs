// Preloaded into `serverless offline` (scripts/offline.mjs): serverless-offline gives every Lambda
// response `Content-Type: application/json` when the function set none, so a 204 would carry one.
// A 204 has no content (RFC 9110 §15.3.5), and the deployed API sends none; this drops the header
// from 204s at the last moment, whatever set it.
const http = require('node:http');

const writeHead = http.ServerResponse.prototype.writeHead;
/**
 * @this {import('node:http').ServerResponse}
 * @param {number} statusCode
 * @param {...any} rest writeHead's own overloads (message, headers), passed on untouched
 */
http.ServerResponse.prototype.writeHead = function noContentType(statusCode, ...rest) {
  if (statusCode === 204) {
    this.removeHeader('content-type');
    for (const headers of rest) {
      if (headers && typeof headers === 'object' && !Array.isArray(headers)) {
        /** @type {Record<string, unknown>} */
        const named = headers;
        for (const name of Object.keys(named)) if (name.toLowerCase() === 'content-type') delete named[name];
      }
    }
  }
  return writeHead.call(this, statusCode, ...rest);
};
