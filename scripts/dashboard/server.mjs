// @ts-check
/**
 * The local dashboard of `npm start`, at http://127.0.0.1:PORT/_local/dashboard: the service's
 * metrics as its CloudWatch dashboard shows them, over the last hour, and its subscriptions with
 * their delivery status (GET /subscriptions/{id}/deliveries). Local only: serverless.yml knows
 * nothing of it. It listens on a port of its own; serverless offline passes it every request under
 * /_local/ (route.cjs), so that the page and the API share one origin.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import { localWidgets } from './metrics.mjs';

export const DASHBOARD_PATH = '/_local/dashboard';

const require = createRequire(import.meta.url);
/** The page, its script and the charting library (uPlot, from node_modules): nothing from elsewhere. */
const FILES = {
  '': { file: new URL('./page.html', import.meta.url), type: 'text/html; charset=utf-8' },
  '/app.js': { file: new URL('./app.js', import.meta.url), type: 'text/javascript; charset=utf-8' },
  '/uplot.js': {
    file: require.resolve('uplot/dist/uPlot.iife.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  '/uplot.css': { file: require.resolve('uplot/dist/uPlot.min.css'), type: 'text/css; charset=utf-8' },
};

/**
 * @param {{ history: ReturnType<typeof import('./metrics.mjs').createMetricsHistory> }} options
 * @returns {Promise<{ url: string, stop: () => Promise<void> }>}
 */
export async function startDashboard({ history }) {
  const widgets = await localWidgets();
  const server = http.createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const rest = path.startsWith(DASHBOARD_PATH)
      ? path.slice(DASHBOARD_PATH.length).replace(/\/$/, '')
      : undefined;
    try {
      if (req.method !== 'GET' || rest === undefined) {
        res
          .writeHead(404, { 'content-type': 'text/plain' })
          .end(`The local dashboard is at ${DASHBOARD_PATH}\n`);
      } else if (rest === '/data') {
        const data = {
          now: Date.now(),
          widgets: widgets.map((w) => ({ title: w.title, series: history.series(w) })),
        };
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify(data));
      } else {
        const asset = FILES[/** @type {keyof typeof FILES} */ (rest)];
        if (!asset) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        res.writeHead(200, { 'content-type': asset.type }).end(await readFile(asset.file));
      }
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
