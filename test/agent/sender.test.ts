/**
 * The sender through a service restart on the same port, as `npm start` stopped and started again
 * (test/agent/daemons' outage case): events queued while nothing listens go out, in order, soon
 * after the service listens again, whether the old service closed its keep-alive connections or
 * left one open and silent (a process that stopped answering without closing its sockets).
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildEvent, resourceAddress } from '../../agent/events';
import { Outbox } from '../../agent/outbox';
import { Sender, ServiceClient } from '../../agent/service';

const NODE = '/c-1/s-1/n-1';
const ADDRESS = resourceAddress(NODE, 'clockClass');

/** A stand-in service: registers publishers, takes events (202) and records their values. */
function startStandIn(port: number, taken: string[]) {
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      if (req.url?.endsWith('/publishers')) {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ SubscriptionId: 'p-1' }));
        return;
      }
      taken.push(String(JSON.parse(body).data.values[0].value));
      res.writeHead(202).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(port, '127.0.0.1');
  return {
    server,
    listening: once(server, 'listening').then(() => (server.address() as AddressInfo).port),
    /** Stops listening; `silently` leaves the open connections open, answering nothing more. */
    stop(silently: boolean) {
      // net.Server's close: http.Server's own would also close the idle keep-alive connections.
      if (silently) net.Server.prototype.close.call(server);
      else server.close();
      if (silently) {
        server.removeAllListeners('request');
        server.on('request', () => undefined);
      } else for (const socket of sockets) socket.destroy();
    },
    destroy() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function until(check: () => boolean, what: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each([
  ['closes its connections', false],
  ['leaves a keep-alive connection open and silent', true],
])('the sender through a service restart that %s', (_, silently) => {
  it('sends what was queued during the outage, in order, once the service listens again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-sender-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const taken: string[] = [];
    const first = startStandIn(0, taken);
    cleanups.push(() => first.destroy());
    const port = await first.listening;
    const lines: string[] = [];
    const outbox = new Outbox(join(dir, 'outbox.json'), 100, () => undefined);
    const sender = new Sender(
      new ServiceClient(`http://127.0.0.1:${port}`, { kind: 'none' }),
      outbox,
      (line) => lines.push(line),
    );
    cleanups.push(() => sender.stop());
    let micros = 0;
    const publish = (value: string) => {
      micros += 1000;
      const time = new Date(Date.UTC(2026, 0, 1) + micros / 1000).toISOString();
      outbox.push({ address: ADDRESS, event: buildEvent(NODE, 'clockClass', { value }, time) });
      sender.kick();
    };

    publish('6');
    await until(() => taken.length === 1, 'the first event', 10_000);
    first.stop(silently);
    publish('7');
    publish('248');
    await until(() => lines.some((line) => line.includes('retrying')), 'the outage to be logged', 10_000);
    // A few back-off rounds while nothing listens.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    publish('6');
    first.server.removeAllListeners('request');
    const second = startStandIn(port, taken);
    cleanups.push(() => second.destroy());
    await second.listening;
    const restartedAt = Date.now();
    await until(() => taken.length === 4, `the queued events (log: ${lines.join(' | ')})`, 20_000);
    // Back-off is at most 5 s, and one attempt at most a request's deadline.
    expect(Date.now() - restartedAt).toBeLessThan(15_000);
    expect(taken).toEqual(['6', '7', '248', '6']);
    expect(outbox.size).toBe(0);
    await until(() => lines.some((line) => line.includes('answers again')), 'the agent to say so', 5000);
  }, 40_000);
});

describe('the sender and a publisher over its rate', () => {
  it('waits the 429’s Retry-After before sending again, longer than its own back-off, and loses nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-sender-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const attempts: number[] = [];
    const taken: string[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        if (req.url?.endsWith('/publishers')) {
          res.writeHead(201, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ SubscriptionId: 'p-1' }));
          return;
        }
        attempts.push(Date.now());
        if (attempts.length === 1) {
          res.writeHead(429, { 'content-type': 'application/problem+json', 'retry-after': '2' });
          res.end(
            JSON.stringify({
              type: 'about:blank',
              title: 'Too Many Requests',
              status: 429,
              detail: 'over its rate',
            }),
          );
          return;
        }
        taken.push(String(JSON.parse(body).data.values[0].value));
        res.writeHead(202).end();
      });
    });
    server.listen(0, '127.0.0.1');
    cleanups.push(() => server.close());
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    const outbox = new Outbox(join(dir, 'outbox.json'), 100, () => undefined);
    const lines: string[] = [];
    const sender = new Sender(
      new ServiceClient(`http://127.0.0.1:${port}`, { kind: 'none' }),
      outbox,
      (line) => lines.push(line),
    );
    cleanups.push(() => sender.stop());
    outbox.push({
      address: ADDRESS,
      event: buildEvent(NODE, 'clockClass', { value: '7' }, new Date().toISOString()),
    });
    sender.kick();
    await until(() => taken.length === 1, `the event (log: ${lines.join(' | ')})`, 10_000);
    const [refused = 0, accepted = 0] = attempts;
    // Its own first back-off would be 100–200 ms.
    expect(accepted - refused).toBeGreaterThanOrEqual(2000);
    expect(taken).toEqual(['7']);
    await until(() => outbox.size === 0, 'the outbox to be emptied', 5000);
  }, 20_000);
});
