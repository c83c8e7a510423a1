/**
 * The local dashboard of `npm start`, at http://127.0.0.1:DASHBOARD_PORT/_local/dashboard (PORT + 1
 * by default): the service's metrics as its CloudWatch dashboard shows them, over the last hour,
 * and its subscriptions with their delivery status (GET /subscriptions/{id}/deliveries). Local
 * only: serverless.yml knows nothing of it. A server of its own, beside serverless offline rather
 * than inside it (offline has no supported way to add a route that is not a function): it serves
 * the page and passes the page's GET requests for the API on to offline, so that the page and the
 * API it reads share one origin. Beside it, each notification's path (notification-path.ts) under
 * NOTIFICATIONS_PATH: `/<trace id>` its page, `/<trace id>/data` its steps; alone, the recent ones.
 */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { localWidgets, type MetricsHistory } from './metrics';
import type { TraceJournal } from './notification-path';

export const DASHBOARD_PATH = '/_local/dashboard';
/** Under DASHBOARD_PATH, the API's routes (app.js reads them there, never knowing its base path). */
const API_PATH = '/api';
/** Under DASHBOARD_PATH: a notification's path by its trace id, or the recent ones. */
export const NOTIFICATIONS_PATH = '/notifications';
const PATH_PAGE = new URL('./notification-page.html', import.meta.url);

const require = createRequire(import.meta.url);
/** The page, its script and the charting library (uPlot, from node_modules): nothing from elsewhere. */
const FILES: Record<string, { file: URL | string; type: string }> = {
  '': { file: new URL('./page.html', import.meta.url), type: 'text/html; charset=utf-8' },
  '/app.js': { file: new URL('./app.js', import.meta.url), type: 'text/javascript; charset=utf-8' },
  '/uplot.js': {
    file: require.resolve('uplot/dist/uPlot.iife.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  '/uplot.css': { file: require.resolve('uplot/dist/uPlot.min.css'), type: 'text/css; charset=utf-8' },
  '/notification-page.js': {
    file: new URL('./notification-page.js', import.meta.url),
    type: 'text/javascript; charset=utf-8',
  },
};

/** The page reads the API (GET only) through the dashboard's own origin: `target` is the API's URL. */
function forwardToApi(req: http.IncomingMessage, res: http.ServerResponse, target: string) {
  const { host: _dashboard, ...headers } = req.headers;
  const forwarded = http.request(target, { headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  forwarded.on('error', (error) =>
    res.writeHead(502, { 'content-type': 'text/plain' }).end(`The API is not answering: ${error.message}\n`),
  );
  forwarded.end();
}

/**
 * `api`: the API's root URL (serverless offline's); `port`: the port to listen on, or, unless
 * `portRequired`, a free one when it is taken. Answers the page's `url`.
 */
export async function startDashboard({
  history,
  journal,
  api,
  port,
  portRequired = false,
}: {
  history: MetricsHistory;
  /** The notifications' log lines by trace id (notification-path.ts). */
  journal: TraceJournal;
  api: string;
  port: number;
  portRequired?: boolean;
}): Promise<{ url: string; stop: () => Promise<void> }> {
  const widgets = await localWidgets();
  const server = http.createServer(async (req, res) => {
    const { pathname, search } = new URL(req.url ?? '/', 'http://localhost');
    const rest = pathname.startsWith(DASHBOARD_PATH)
      ? pathname.slice(DASHBOARD_PATH.length).replace(/\/$/, '')
      : undefined;
    try {
      if (req.method !== 'GET' || rest === undefined) {
        res
          .writeHead(404, { 'content-type': 'text/plain' })
          .end(`The local dashboard is at ${DASHBOARD_PATH}\n`);
      } else if (rest.startsWith(`${API_PATH}/`)) {
        forwardToApi(req, res, `${api}${rest.slice(API_PATH.length)}${search}`);
      } else if (rest === '/data') {
        const data = {
          now: Date.now(),
          widgets: widgets.map((w) => ({ title: w.title, series: history.series(w) })),
        };
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify(data));
      } else if (rest === NOTIFICATIONS_PATH || rest.startsWith(`${NOTIFICATIONS_PATH}/`)) {
        const [traceId = '', data] = rest.slice(NOTIFICATIONS_PATH.length + 1).split('/');
        if (traceId === 'data' || data === 'data') {
          const body = traceId === 'data' ? journal.recent() : journal.path(traceId);
          res.writeHead(body ? 200 : 404, {
            'content-type': 'application/json',
            'cache-control': 'no-store',
          });
          res.end(JSON.stringify(body ?? []));
        } else {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(await readFile(PATH_PAGE));
        }
      } else {
        const asset = FILES[rest];
        if (!asset) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        res.writeHead(200, { 'content-type': asset.type }).end(await readFile(asset.file));
      }
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    }
  });
  const listen = async (on: number) => {
    server.listen(on, '127.0.0.1');
    await once(server, 'listening'); // or throws the 'error'
  };
  try {
    await listen(port);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    if (portRequired) throw new Error(`Port ${port} for the local dashboard is already in use`);
    await listen(0);
  }
  const { port: listening } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${listening}${DASHBOARD_PATH}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
