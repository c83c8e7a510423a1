import { ServiceUnavailableError } from '../errors';
import { logger } from '../logger';
import type { OutgoingMessage, QueueName, QueuePort } from './queue-port';

/** Messages per request: keeps a 10,000-subscriber fan-out to a few requests of bounded size. */
const CHUNK = 500;
const TIMEOUT_MS = 5000;

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
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      status = response.status;
      await response.body?.cancel();
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
