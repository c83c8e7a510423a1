/**
 * The subset of SQS's AWS JSON 1.0 protocol that the service and its event sources use, over the
 * local queue's store: POST / with `x-amz-target: AmazonSQS.<Action>`. Requests are not checked
 * for a signature (any credentials do), as with other local AWS stand-ins. Errors are answered
 * as SQS answers them: 400, `__type` and `x-amzn-query-error`, so that the AWS SDK's SQS client
 * (in lib/queue/sqs-queue.ts) reads the same codes it would read from SQS.
 */
import { md5, type QueueStore, type Redrive, type SendEntry, type StoredMessage } from './store';

/** SQS's limits: a message, and the bodies of one batch together, up to 1 MiB (since August 2025). */
const MAX_BATCH = 10;
const MAX_MESSAGE_BYTES = 1024 * 1024;
const MAX_DELAY_SECONDS = 900;
const MAX_VISIBILITY_SECONDS = 43_200;
const MAX_WAIT_SECONDS = 20;

/** The account in local queue URLs, as SQS puts the account id before the queue name. */
export const LOCAL_ACCOUNT = '000000000000';

export class SqsApiError extends Error {
  /**
   * @param code the `__type` without its namespace
   * @param queryCode the code of SQS's query protocol, for `x-amzn-query-error`
   */
  constructor(
    readonly code: string,
    message: string,
    readonly queryCode: string = code,
  ) {
    super(message);
  }
}

const invalid = (message: string) => new SqsApiError('InvalidParameterValue', message);

export interface SqsApiContext {
  store: QueueStore;
  /** The queue names. */
  queues: readonly string[];
  /** A queue's default visibility time-out. */
  visibilityMs: (name: string) => number;
  redrive: (name: string) => Redrive | undefined;
  /** Receives, moving what must go to the dead-letter queue and reporting it. */
  receive: (name: string, max: number, visibilityMs: number) => StoredMessage[];
  /** Sends and wakes the poller. */
  send: (name: string, entries: SendEntry[]) => string[];
  /** Wakes the poller after a visibility change. */
  changed: (name: string) => void;
  /** Resolves on a send, or after `ms`. */
  waitForMessages: (ms: number) => Promise<void>;
  baseUrl: string;
}

/** Runs one action. Returns the response body; throws SqsApiError for what SQS would refuse. */
export async function runAction(
  context: SqsApiContext,
  action: string,
  input: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const queueOf = () => queueName(context, input);
  switch (action) {
    case 'GetQueueUrl': {
      const name = String(input.QueueName ?? '');
      if (!context.queues.includes(name)) throw noSuchQueue(name);
      return { QueueUrl: `${context.baseUrl}/${LOCAL_ACCOUNT}/${name}` };
    }
    case 'SendMessage': {
      const queue = queueOf();
      const entry = sendEntry(input);
      const [messageId] = context.send(queue, [entry]);
      return { MessageId: messageId, MD5OfMessageBody: md5(entry.body) };
    }
    case 'SendMessageBatch': {
      const queue = queueOf();
      const entries = batchEntries(input);
      const total = entries.reduce((sum, e) => sum + Buffer.byteLength(String(e.MessageBody ?? '')), 0);
      if (total > MAX_MESSAGE_BYTES) {
        throw new SqsApiError(
          'BatchRequestTooLong',
          `The batch's bodies total ${total} bytes, over ${MAX_MESSAGE_BYTES}`,
        );
      }
      const failed: { Id: string; SenderFault: boolean; Code: string; Message: string }[] = [];
      const accepted: { id: string; body: string; delayMs: number }[] = [];
      for (const entry of entries) {
        try {
          accepted.push({ id: String(entry.Id), ...sendEntry(entry) });
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          failed.push({
            Id: String(entry.Id),
            SenderFault: true,
            Code: 'InvalidParameterValue',
            Message: message,
          });
        }
      }
      const ids = accepted.length > 0 ? context.send(queue, accepted) : [];
      return {
        Successful: accepted.map((entry, i) => ({
          Id: entry.id,
          MessageId: ids[i],
          MD5OfMessageBody: md5(entry.body),
        })),
        Failed: failed,
      };
    }
    case 'ReceiveMessage': {
      const queue = queueOf();
      const max = integer(input.MaxNumberOfMessages, 1, 1, MAX_BATCH, 'MaxNumberOfMessages');
      const visibilityMs =
        input.VisibilityTimeout === undefined
          ? context.visibilityMs(queue)
          : integer(input.VisibilityTimeout, 0, 0, MAX_VISIBILITY_SECONDS, 'VisibilityTimeout') * 1000;
      const waitMs = integer(input.WaitTimeSeconds, 0, 0, MAX_WAIT_SECONDS, 'WaitTimeSeconds') * 1000;
      const deadline = Date.now() + waitMs;
      for (;;) {
        const messages = context.receive(queue, max, visibilityMs);
        const left = deadline - Date.now();
        if (messages.length > 0 || left <= 0) return { Messages: messages.map(sqsMessage) };
        await context.waitForMessages(Math.min(left, 1000));
      }
    }
    case 'DeleteMessage': {
      // SQS answers success for a receipt handle that is no longer the latest (nothing is deleted).
      context.store.delete(queueOf(), String(input.ReceiptHandle ?? ''));
      return {};
    }
    case 'DeleteMessageBatch': {
      const queue = queueOf();
      const entries = batchEntries(input);
      context.store.deleteAll(
        queue,
        entries.map((entry) => String(entry.ReceiptHandle ?? '')),
      );
      return { Successful: entries.map((entry) => ({ Id: String(entry.Id) })), Failed: [] };
    }
    case 'ChangeMessageVisibility': {
      const queue = queueOf();
      changeVisibility(context, queue, input);
      context.changed(queue);
      return {};
    }
    case 'ChangeMessageVisibilityBatch': {
      const queue = queueOf();
      const entries = batchEntries(input);
      const successful: { Id: string }[] = [];
      const failed: { Id: string; SenderFault: boolean; Code: string; Message: string }[] = [];
      for (const entry of entries) {
        const id = String(entry.Id);
        try {
          changeVisibility(context, queue, entry);
          successful.push({ Id: id });
        } catch (error) {
          const code = error instanceof SqsApiError ? error.code : 'InternalError';
          failed.push({ Id: id, SenderFault: true, Code: code, Message: String(error) });
        }
      }
      context.changed(queue);
      return { Successful: successful, Failed: failed };
    }
    case 'GetQueueAttributes': {
      const queue = queueOf();
      const counts = context.store.counts().get(queue) ?? { total: 0, visible: 0 };
      const redrive = context.redrive(queue);
      return {
        Attributes: {
          ApproximateNumberOfMessages: String(counts.visible),
          ApproximateNumberOfMessagesNotVisible: String(counts.total - counts.visible),
          VisibilityTimeout: String(Math.ceil(context.visibilityMs(queue) / 1000)),
          QueueArn: arn(queue),
          ...(redrive
            ? {
                RedrivePolicy: JSON.stringify({
                  deadLetterTargetArn: arn(redrive.deadLetterQueue),
                  maxReceiveCount: redrive.maxReceiveCount,
                }),
              }
            : {}),
        },
      };
    }
    default:
      throw new SqsApiError('InvalidAction', `The local queue does not implement ${action || 'this action'}`);
  }
}

/** One visibility change, of a call or of a batch entry. */
function changeVisibility(context: SqsApiContext, queue: string, input: Record<string, unknown>) {
  const seconds = integer(input.VisibilityTimeout, undefined, 0, MAX_VISIBILITY_SECONDS, 'VisibilityTimeout');
  if (!context.store.changeVisibility(queue, String(input.ReceiptHandle ?? ''), seconds * 1000)) {
    throw staleReceipt();
  }
}

export const arn = (name: string) => `arn:aws:sqs:us-east-1:${LOCAL_ACCOUNT}:${name}`;

function queueName(context: SqsApiContext, input: Record<string, unknown>) {
  const url = String(input.QueueUrl ?? '');
  const name = url.replace(/\/+$/, '').split('/').pop() ?? '';
  if (!context.queues.includes(name)) throw noSuchQueue(url || '(no QueueUrl)');
  return name;
}

const noSuchQueue = (which: string) =>
  new SqsApiError(
    'QueueDoesNotExist',
    `The specified queue does not exist: ${which}`,
    'AWS.SimpleQueueService.NonExistentQueue',
  );

const staleReceipt = () =>
  new SqsApiError(
    'ReceiptHandleIsInvalid',
    'The receipt handle is not the latest of a message in flight: it was deleted or received again',
  );

function batchEntries(input: Record<string, unknown>) {
  const entries = input.Entries;
  if (!Array.isArray(entries) || entries.length === 0) {
    throw new SqsApiError('EmptyBatchRequest', 'There should be at least one entry in the request');
  }
  if (entries.length > MAX_BATCH) {
    throw new SqsApiError('TooManyEntriesInBatchRequest', `At most ${MAX_BATCH} entries per batch`);
  }
  const objects = entries.map((entry) => (typeof entry === 'object' && entry !== null ? entry : {}));
  const ids = new Set(objects.map((entry) => String(entry.Id)));
  if (ids.size !== objects.length) {
    throw new SqsApiError('BatchEntryIdsNotDistinct', 'Two or more batch entries have the same Id');
  }
  return objects as Record<string, unknown>[];
}

function sendEntry(input: Record<string, unknown>) {
  const body = input.MessageBody;
  if (typeof body !== 'string' || body.length === 0) throw invalid('MessageBody must be a non-empty string');
  if (Buffer.byteLength(body) > MAX_MESSAGE_BYTES)
    throw invalid(`MessageBody is over ${MAX_MESSAGE_BYTES} bytes`);
  return { body, delayMs: integer(input.DelaySeconds, 0, 0, MAX_DELAY_SECONDS, 'DelaySeconds') * 1000 };
}

/** An integer parameter within [min, max]; without `fallback` it is required. */
function integer(value: unknown, fallback: number | undefined, min: number, max: number, name: string) {
  if (value === undefined && fallback !== undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) {
    throw invalid(`${name} must be an integer from ${min} to ${max}`);
  }
  return number;
}

function sqsMessage(message: StoredMessage) {
  return {
    MessageId: message.messageId,
    ReceiptHandle: message.receiptHandle,
    MD5OfBody: md5(message.body),
    Body: message.body,
    Attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentAt),
      ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? message.sentAt),
      SenderId: LOCAL_ACCOUNT,
      ...(message.deadLetterSourceQueue
        ? { DeadLetterQueueSourceArn: arn(message.deadLetterSourceQueue) }
        : {}),
    },
  };
}
