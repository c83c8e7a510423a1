import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An endpoint that accepts connections on 127.0.0.1 and ::1 (one port) and answers every request
 * 204: what a subscription needs when nothing has been published under its address and the
 * service only checks that the endpoint accepts a connection. Started once per test file; it does
 * not keep the worker alive.
 */
async function startSink(): Promise<number> {
  const listen = (server: http.Server, host: string, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
      server.unref();
    });
  const answer: http.RequestListener = (_req, res) => res.writeHead(204).end();
  const port = await listen(http.createServer(answer), '127.0.0.1', 0);
  await listen(http.createServer(answer), '::1', port);
  return port;
}

export const SINK_PORT = await startSink();
/** `http://127.0.0.1:<port>`: append a path. */
export const SINK = `http://127.0.0.1:${SINK_PORT}`;
