import http from 'node:http';
import { ServiceUnavailableError } from '../errors';
import { logger } from '../logger';
import type { OutgoingMessage, QueueName, QueuePort } from './queue-port';

/** Messages per request: keeps a 10,000-subscriber fan-out to a few requests of bounded size. */
const CHUNK = 500;
const TIMEOUT_MS = 5000;
const agent = /* @__PURE__ */ new http.Agent({ keepAlive: true });

/**
 * The queue of `npm start` and of the tests: `scripts/local-queue.mjs`, an HTTP server on
 * 127.0.0.1 with SQS's semantics (visibility time-outs, receive counts, delays, a dead-letter
 * queue). Chosen when LOCAL_QUEUE_URL is set.
 */
export class LocalHttpQueue implements QueuePort {
  constructor(private readonly baseUrl: string) {}

  async send(queue: QueueName, messages: readonly OutgoingMessage[]): Promise<void> {
    for (let start = 0; start < messages.length; start += CHUNK) {
      await this.post(queue, 'messages', { messages: messages.slice(start, start + CHUNK) });
    }
  }

  async changeVisibility(queue: QueueName, receiptHandle: string, timeoutMs: number): Promise<void> {
    await this.post(queue, 'visibility', { receiptHandle, visibilityMs: Math.max(0, Math.round(timeoutMs)) });
  }

  private async post(queue: QueueName, action: string, body: unknown): Promise<void> {
    const url = `${this.baseUrl}/queues/${queue}/${action}`;
    let status: number;
    try {
      // node:http, not fetch: fetch's first call loads undici, which a cold start would pay for.
      status = await postJson(url, JSON.stringify(body));
    } catch (error) {
      logger.error('local queue unreachable', { url, error });
      throw new ServiceUnavailableError(`The ${queue} queue is unavailable; retry shortly`, 1, {
        cause: error,
      });
    }
    // 404 on a visibility change: the receipt is stale (the message was deleted or received again).
    if (status === 404 && action === 'visibility') return;
    if (status < 200 || status >= 300) {
      throw new ServiceUnavailableError(`The ${queue} queue answered HTTP ${status}; retry shortly`);
    }
  }
}

function postJson(url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        timeout: TIMEOUT_MS,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}
