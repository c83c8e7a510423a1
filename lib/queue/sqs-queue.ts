import { ServiceUnavailableError } from '../errors';
import { logger } from '../logger';
import type { OutgoingMessage, QueueName, QueuePort } from './queue-port';
import { createSqsSend, type SendMessageBatchRequestEntry, type SqsSend } from './sqs-client';

export type { SqsCall, SqsSend } from './sqs-client';

/** SQS limits: 10 entries per batch, a delay of at most 15 minutes, a visibility of at most 12 hours. */
export const SQS_BATCH_SIZE = 10;
const MAX_DELAY_SECONDS = 900;
const MAX_VISIBILITY_SECONDS = 43_200;
/** Batches in flight at once: enough to enqueue 10,000 deliveries in about a second. */
const PARALLEL_BATCHES = 25;
/** Entries SQS refuses in a batch (throttling, internal errors) are re-sent this many times. */
const BATCH_ATTEMPTS = 4;

// One sender per process, kept at module scope so a Lambda reuses it (and its connections) across
// invocations; built on first use so that functions which never enqueue do not pay for it.
let sender: SqsSend | undefined;
const defaultSend: SqsSend = (call) => {
  sender ??= createSqsSend();
  return sender(call);
};

export class SqsQueue implements QueuePort {
  constructor(
    // Each function is given the URLs of the queues it uses.
    private readonly urls: Readonly<Partial<Record<QueueName, string>>>,
    private readonly sendCommand: SqsSend = defaultSend,
  ) {}

  private url(queue: QueueName): string {
    const url = this.urls[queue];
    if (!url) throw new Error(`no URL is configured for the ${queue} queue`);
    return url;
  }

  async send(queue: QueueName, messages: readonly OutgoingMessage[]): Promise<void> {
    const batches: SendMessageBatchRequestEntry[][] = [];
    for (let start = 0; start < messages.length; start += SQS_BATCH_SIZE) {
      batches.push(
        messages.slice(start, start + SQS_BATCH_SIZE).map((message, i) => ({
          Id: String(i),
          MessageBody: message.body,
          ...(message.delayMs ? { DelaySeconds: toSeconds(message.delayMs, MAX_DELAY_SECONDS) } : {}),
        })),
      );
    }
    let next = 0;
    const worker = async () => {
      while (next < batches.length) {
        const batch = batches[next++];
        if (batch) await this.sendBatch(queue, batch);
      }
    };
    await unavailableOnError(queue, () =>
      Promise.all(Array.from({ length: Math.min(PARALLEL_BATCHES, batches.length) }, worker)),
    );
  }

  async changeVisibility(queue: QueueName, receiptHandle: string, timeoutMs: number): Promise<void> {
    await unavailableOnError(queue, () =>
      this.sendCommand({
        action: 'ChangeMessageVisibility',
        input: {
          QueueUrl: this.url(queue),
          ReceiptHandle: receiptHandle,
          VisibilityTimeout: toSeconds(timeoutMs, MAX_VISIBILITY_SECONDS),
        },
      }),
    );
  }

  private async sendBatch(queue: QueueName, entries: SendMessageBatchRequestEntry[]): Promise<void> {
    let pending = entries;
    for (let attempt = 1; pending.length > 0; attempt++) {
      const result = await this.sendCommand({
        action: 'SendMessageBatch',
        input: { QueueUrl: this.url(queue), Entries: pending },
      });
      const failed = result.Failed ?? [];
      if (failed.length === 0) return;
      const failedIds = new Set(failed.map((entry) => entry.Id));
      // A sender's fault (a message too large, say) will not pass on a retry.
      const fatal = failed.find((entry) => entry.SenderFault);
      if (fatal || attempt >= BATCH_ATTEMPTS) {
        const first = fatal ?? failed[0];
        throw new Error(`SQS refused ${failed.length} message(s): ${first?.Code} ${first?.Message ?? ''}`);
      }
      pending = pending.filter((entry) => failedIds.has(entry.Id));
      await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt * Math.random()));
    }
  }
}

/** Whole seconds, rounded up so that a back-off is never shortened, within SQS's bounds. */
export function toSeconds(ms: number, max: number): number {
  return Math.min(max, Math.max(0, Math.ceil(ms / 1000)));
}

async function unavailableOnError<T>(queue: QueueName, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    logger.error('queue call failed', { queue, error });
    throw new ServiceUnavailableError(`The ${queue} queue is unavailable; retry shortly`, 1, {
      cause: error,
    });
  }
}
