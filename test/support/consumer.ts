import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, vi } from 'vitest';

export interface ReceivedNotification {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: unknown;
  /** The body exactly as it arrived, which is what a signature covers. */
  readonly raw: string;
  readonly at: number;
}

export type Reply = { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang';

/**
 * A real consumer endpoint on 127.0.0.1: records every notification and answers with the next
 * scripted reply (the last one repeats; 204 by default). On `port` when given (a stored release's
 * endpoint, test/upgrade), else on any free one.
 */
export async function startConsumer(replies: Reply[] = [{ status: 204 }], port = 0) {
  const received: ReceivedNotification[] = [];
  const script = [...replies];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {}
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        raw,
        at: Date.now(),
      });
      const reply = script.length > 1 ? script.shift() : script[0];
      if (!reply || reply === 'hang') return;
      setTimeout(() => res.writeHead(reply.status, reply.headers).end(), reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/events`,
    port: bound,
    received,
    /** Resolves when at least `count` notifications have arrived, or rejects after `timeoutMs`. */
    async waitFor(count: number, timeoutMs = 10_000): Promise<ReceivedNotification[]> {
      await vi.waitFor(
        () => {
          if (received.length < count)
            throw new Error(`expected ${count} notifications, got ${received.length}`);
        },
        { timeout: timeoutMs, interval: 10 },
      );
      return received;
    },
    async close(): Promise<void> {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Consumer = Awaited<ReturnType<typeof startConsumer>>;

/**
 * Returns a `startConsumer` that remembers every consumer it starts and closes them after each
 * test. Call once at the top of a test file.
 */
export function trackConsumers(): (replies?: Reply[]) => Promise<Consumer> {
  const started: Consumer[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((consumer) => consumer.close()));
  });
  return async (replies) => {
    const consumer = await startConsumer(replies);
    started.push(consumer);
    return consumer;
  };
}
