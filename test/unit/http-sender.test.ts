import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRetryAfter, postJson } from '../../lib/delivery/http-sender';
import { createNetworkPolicy } from '../../lib/delivery/network-policy';

// Only 127.0.0.1 / localhost servers started here are ever contacted.
const allowPrivate = createNetworkPolicy({ mode: 'allow-private' });
const publicOnly = createNetworkPolicy({ mode: 'public-only' });
const userAgent = 'ocloud-notifications-test/1.0';
const timeoutMs = 300;

interface Received {
  method: string | undefined;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface TestServer {
  url: string;
  port: number;
  received: Received[];
}

const servers: http.Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function startServer(
  respond: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<TestServer> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push({ method: req.method, headers: req.headers, body });
      respond(req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, port, received };
}

const send = (url: string, policy = allowPrivate, headers?: Record<string, string>) =>
  postJson(url, JSON.stringify({ hello: 'world' }), { timeoutMs, policy, userAgent, headers });

describe('postJson', () => {
  it('returns 204 as a response', async () => {
    const server = await startServer((_req, res) => res.writeHead(204).end());
    expect(await send(server.url)).toEqual({ kind: 'response', status: 204 });
    expect(server.received).toHaveLength(1);
  });

  it('returns 200 after draining a response body', async () => {
    const server = await startServer((_req, res) => res.writeHead(200).end('{"ok":true}'));
    expect(await send(server.url)).toEqual({ kind: 'response', status: 200 });
  });

  it('stops reading a body larger than 64 KiB instead of waiting for the rest', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'Content-Length': String(10 * 1024 * 1024) });
      res.write(Buffer.alloc(256 * 1024)); // and never finishes
    });
    const started = Date.now();
    expect(await send(server.url)).toEqual({ kind: 'response', status: 200 });
    expect(Date.now() - started).toBeLessThan(timeoutMs);
  });

  it('returns the status when the body stalls past the deadline', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'Content-Length': '100' });
      res.write('partial');
    });
    const started = Date.now();
    expect(await send(server.url)).toEqual({ kind: 'response', status: 200 });
    expect(Date.now() - started).toBeLessThan(timeoutMs + 200);
  });

  it('passes Retry-After: 7 on a 503 as retryAfterSeconds', async () => {
    const server = await startServer((_req, res) => res.writeHead(503, { 'Retry-After': '7' }).end());
    expect(await send(server.url)).toEqual({ kind: 'response', status: 503, retryAfterSeconds: 7 });
  });

  it('accepts Retry-After as an HTTP-date', async () => {
    const when = new Date(Date.now() + 30_000).toUTCString();
    const server = await startServer((_req, res) => res.writeHead(429, { 'Retry-After': when }).end());
    const outcome = await send(server.url);
    expect(outcome).toMatchObject({ kind: 'response', status: 429 });
    if (outcome.kind !== 'response') throw new Error('unreachable');
    expect(outcome.retryAfterSeconds).toBeGreaterThanOrEqual(28);
    expect(outcome.retryAfterSeconds).toBeLessThanOrEqual(31);
  });

  it('returns a 302 without following it', async () => {
    const target = await startServer((_req, res) => res.writeHead(204).end());
    const redirecting = await startServer((_req, res) => res.writeHead(302, { Location: target.url }).end());
    expect(await send(redirecting.url)).toEqual({ kind: 'response', status: 302 });
    expect(redirecting.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
  });

  it('times out within about timeoutMs when the server never answers', async () => {
    const server = await startServer(() => {});
    const started = Date.now();
    expect(await send(server.url)).toEqual({ kind: 'timeout' });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 20);
    expect(elapsed).toBeLessThan(timeoutMs + 200);
  });

  it("times an attempt from when it has a socket, not while it waits for one of the agent's 64 to a busy host", async () => {
    // 320 attempts at once to one host that answers each in 3/10 of the time-out: with 64 sockets
    // they go in five waves, so the last waves wait 4 × 3/10 of the time-out for a socket — longer
    // than the time-out itself — and then are answered at once. Timed from their creation, the
    // fourth and fifth waves (128 attempts) time out; timed from their socket, none does, with 7/10
    // of the time-out to spare for a loaded machine.
    const attemptTimeoutMs = 1000;
    const server = await startServer((_req, res) => {
      setTimeout(() => res.writeHead(204).end(), (attemptTimeoutMs * 3) / 10);
    });
    const started = Date.now();
    const outcomes = await Promise.all(
      Array.from({ length: 320 }, () =>
        postJson(server.url, '{}', { timeoutMs: attemptTimeoutMs, policy: allowPrivate, userAgent }),
      ),
    );
    expect(outcomes.filter((o) => o.kind !== 'response')).toEqual([]);
    expect(server.received).toHaveLength(320);
    // The waits did happen: the last wave was answered after more than the time-out.
    expect(Date.now() - started).toBeGreaterThan(attemptTimeoutMs);
  });

  it('keeps an answer that arrived in time when its process was busy past the deadline', async () => {
    // The consumer runs in a worker thread. It tells this thread when the request has arrived,
    // waits until this thread is busy, answers 204, and tells it so; this thread stays busy until
    // well past the time-out. When it runs again the time-out's timer is due and the answer is in
    // its socket: timers run before sockets are read, so without the deferral this was a timeout.
    const flags = new Int32Array(new SharedArrayBuffer(12)); // arrived, busy, answered
    const worker = new Worker(
      `const { workerData: flags, parentPort } = require('node:worker_threads');
      const server = require('node:http').createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          Atomics.store(flags, 0, 1);
          Atomics.wait(flags, 1, 0);
          res.writeHead(204).end(() => Atomics.store(flags, 2, 1));
        });
      });
      server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));`,
      { eval: true, workerData: flags },
    );
    try {
      const port = await new Promise<number>((resolve) => worker.once('message', resolve));
      const started = Date.now();
      const outcome = postJson(`http://127.0.0.1:${port}/hook`, '{}', {
        timeoutMs,
        policy: allowPrivate,
        userAgent,
      });
      while (Atomics.load(flags, 0) === 0) await new Promise((resolve) => setImmediate(resolve));
      Atomics.store(flags, 1, 1);
      Atomics.notify(flags, 1);
      while (Atomics.load(flags, 2) === 0 || Date.now() - started < timeoutMs * 2) {
        // busy: no timer, no socket is served
      }
      expect(await outcome).toEqual({ kind: 'response', status: 204 });
    } finally {
      await worker.terminate();
    }
  });

  it('maps a closed port to network-error', async () => {
    const server = await startServer((_req, res) => res.end());
    const closed = servers.pop();
    await new Promise((resolve) => closed?.close(resolve));
    const outcome = await send(server.url);
    expect(outcome).toMatchObject({ kind: 'network-error' });
    if (outcome.kind === 'network-error') expect(outcome.reason).toMatch(/ECONNREFUSED/);
  });

  it('refuses 127.0.0.1 under public-only without connecting', async () => {
    let connections = 0;
    const server = await startServer((_req, res) => res.writeHead(204).end());
    servers.at(-1)?.on('connection', () => connections++);
    const outcome = await send(server.url, publicOnly);
    expect(outcome).toEqual({ kind: 'forbidden', reason: 'loopback address' });
    expect(server.received).toHaveLength(0);
    expect(connections).toBe(0);
  });

  it('refuses a name resolving to loopback at connect time (lookup)', async () => {
    let connections = 0;
    const server = await startServer((_req, res) => res.writeHead(204).end());
    servers.at(-1)?.on('connection', () => connections++);
    const outcome = await send(`http://localhost:${server.port}/hook`, publicOnly);
    expect(outcome.kind).toBe('forbidden');
    if (outcome.kind === 'forbidden') expect(outcome.reason).toMatch(/loopback/);
    expect(connections).toBe(0);
  });

  it('re-checks a pooled keep-alive socket against the policy of each request', async () => {
    const server = await startServer((_req, res) => res.writeHead(204).end());
    const url = `http://localhost:${server.port}/hook`;
    expect(await send(url, allowPrivate)).toEqual({ kind: 'response', status: 204 });
    expect((await send(url, publicOnly)).kind).toBe('forbidden');
    expect(server.received).toHaveLength(1);
  });

  it('refuses non-HTTP schemes and invalid URLs', async () => {
    expect((await send('ftp://127.0.0.1/x')).kind).toBe('forbidden');
    expect((await send('not a url')).kind).toBe('forbidden');
  });

  it('sends the JSON body with content-type, content-length, user-agent and custom headers', async () => {
    const server = await startServer((_req, res) => res.writeHead(204).end());
    const body = JSON.stringify({ event: 'é' });
    const outcome = await postJson(server.url, body, {
      timeoutMs,
      policy: allowPrivate,
      userAgent,
      headers: { 'webhook-id': 'msg_123', 'content-type': 'text/plain' },
    });
    expect(outcome).toEqual({ kind: 'response', status: 204 });
    const [request] = server.received;
    expect(request?.method).toBe('POST');
    expect(request?.body).toBe(body);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(request?.headers['user-agent']).toBe(userAgent);
    expect(request?.headers['webhook-id']).toBe('msg_123');
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it.each([
    ['7', 7],
    [' 120 ', 120],
    ['0', 0],
    ['Wed, 01 Jan 2025 00:01:00 GMT', 60],
    ['Tue, 31 Dec 2024 23:00:00 GMT', 0],
    ['-5', undefined],
    ['1.5', undefined],
    ['soon', undefined],
    [undefined, undefined],
  ])('%s → %s', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
