// Preloaded into `serverless offline` (scripts/offline.mjs): when `npm start` runs the local
// dashboard (LOCAL_DASHBOARD_URL, scripts/dashboard/server.mjs), every request under /_local/ goes
// there instead of to the API, so that the page and the API it reads share one origin.
const http = require('node:http');

const target = process.env.LOCAL_DASHBOARD_URL;
if (target) {
  const emit = http.Server.prototype.emit;
  /**
   * @this {import('node:http').Server}
   * @param {string | symbol} event
   * @param {...any} args
   */
  http.Server.prototype.emit = function withLocalDashboard(event, ...args) {
    const [req, res] = args;
    if (event !== 'request' || !req?.url?.startsWith('/_local/')) {
      return /** @type {any} */ (emit).call(this, event, ...args);
    }
    const forwarded = http.request(
      new URL(req.url, target),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.writeHead(502, { 'content-type': 'text/plain' }).end('dashboard down\n'));
    req.pipe(forwarded);
    return true;
  };
}
