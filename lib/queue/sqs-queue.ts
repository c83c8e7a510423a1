import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { ServiceUnavailableError } from '../errors';
import { logger } from '../logger';
import { pauseBeforeRetry } from '../retry-pause';
import { traced, xrayTraceHeader } from '../tracing';
import { type OutgoingMessage, type QueueName, type QueuePort, SEND_BATCH_SIZE } from './queue-port';

/**
 * SQS limits (besides SEND_BATCH_SIZE): a delay of at most 15 minutes, a visibility of at most 12
 * hours, and 1 MiB for the bodies of one request together.
 */
const MAX_DELAY_SECONDS = 900;
const MAX_REQUEST_BYTES = 1024 * 1024;
const MAX_VISIBILITY_SECONDS = 43_200;
/** Batches in flight at once: enough to enqueue 10,000 deliveries in about a second. */
const PARALLEL_BATCHES = 25;
/**
 * Sends of the entries SQS failed inside a batch it answered (an internal error on its side): the
 * SDK retries a failed call, not the failed entries of a successful one.
 */
const FAILED_ENTRY_SENDS = 3;

// One client per process, kept at module scope so a Lambda reuses it (and its connections) across
// invocations; built on first use so that functions which never enqueue do not pay for it. Exported
// so that whoever counts the functions' SQS calls counts this very client's.
let client: SQSClient | undefined;

/**
 * The AWS SDK's SQS client. Its standard retry strategy is the one retry policy of a call: up to
 * 3 attempts with jittered back-off on throttling, 5xx and network errors. Time-outs are short so
 * that a queue that does not answer turns into a quick 503 rather than a Lambda time-out. A call
 * goes to its queue URL's host (the client's default), so the local queue needs no endpoint.
 */
export function sqsClient(): SQSClient {
  client ??= traced(
    new SQSClient({
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 1000, requestTimeout: 3000 },
    }),
  );
  return client;
}

export class SqsQueue implements QueuePort {
  constructor(
    // Each function is given the URLs of the queues it uses.
    private readonly urls: Readonly<Partial<Record<QueueName, string>>>,
  ) {}

  private url(queue: QueueName): string {
    const url = this.urls[queue];
    if (!url) throw new Error(`no URL is configured for the ${queue} queue`);
    return url;
  }

  async send(queue: QueueName, messages: readonly OutgoingMessage[]): Promise<void> {
    // Requests of up to 10 messages, their bodies within 1 MiB together.
    const batches: SendMessageBatchRequestEntry[][] = [];
    // A traced function's messages carry its X-Ray trace header, so that X-Ray links the invocation
    // that receives them to this one (docs/operations.md). SQS does not count it in a message's size.
    const traceHeader = xrayTraceHeader();
    const systemAttributes = traceHeader
      ? { MessageSystemAttributes: { AWSTraceHeader: { DataType: 'String', StringValue: traceHeader } } }
      : {};
    let batch: SendMessageBatchRequestEntry[] = [];
    let bytes = 0;
    for (const message of messages) {
      const size = Buffer.byteLength(message.body);
      if (batch.length === SEND_BATCH_SIZE || (batch.length > 0 && bytes + size > MAX_REQUEST_BYTES)) {
        batches.push(batch);
        batch = [];
        bytes = 0;
      }
      batch.push({
        Id: String(batch.length),
        MessageBody: message.body,
        ...(message.delayMs ? { DelaySeconds: toSeconds(message.delayMs, MAX_DELAY_SECONDS) } : {}),
        ...systemAttributes,
      });
      bytes += size;
    }
    if (batch.length > 0) batches.push(batch);
    let next = 0;
    const worker = async () => {
      while (next < batches.length) {
        const entries = batches[next++];
        if (entries) await this.sendBatch(queue, entries);
      }
    };
    await unavailableOnError(queue, () =>
      Promise.all(Array.from({ length: Math.min(PARALLEL_BATCHES, batches.length) }, worker)),
    );
  }

  async changeVisibility(queue: QueueName, receiptHandle: string, timeoutMs: number): Promise<void> {
    await unavailableOnError(queue, () =>
      sqsClient().send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: this.url(queue),
          ReceiptHandle: receiptHandle,
          VisibilityTimeout: toSeconds(timeoutMs, MAX_VISIBILITY_SECONDS),
        }),
      ),
    );
  }

  private async sendBatch(queue: QueueName, entries: SendMessageBatchRequestEntry[]): Promise<void> {
    let pending = entries;
    for (let send = 1; pending.length > 0; send++) {
      if (send > 1) await pauseBeforeRetry(send - 1);
      const result = await sqsClient().send(
        new SendMessageBatchCommand({ QueueUrl: this.url(queue), Entries: pending }),
      );
      const failed = result.Failed ?? [];
      if (failed.length === 0) return;
      // A sender's fault (a message too large, say) will not pass on a retry.
      const fatal = failed.find((entry) => entry.SenderFault);
      if (fatal || send >= FAILED_ENTRY_SENDS) {
        const first = fatal ?? failed[0];
        throw new Error(`SQS refused ${failed.length} message(s): ${first?.Code} ${first?.Message ?? ''}`);
      }
      const failedIds = new Set(failed.map((entry) => entry.Id));
      pending = pending.filter((entry) => failedIds.has(entry.Id));
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
