/**
 * The SQS actions the service and the tests' event sources call, in SQS's AWS JSON 1.0 protocol,
 * over the local queue's store: POST / with `x-amz-target: AmazonSQS.<Action>`. The deployed
 * adapter (lib/queue/sqs-queue.ts) sends with SendMessageBatch and backs off with
 * ChangeMessageVisibility; test/budgets/harness.ts plays an event source with ReceiveMessage and
 * DeleteMessageBatch. Requests are not checked for a signature (any credentials do), as with other
 * local AWS stand-ins. Errors are answered as 400 with SQS's `__type`, which the AWS SDK turns into
 * the same error names as SQS's.
 */
import { md5, type QueueStore, type SendEntry, type StoredMessage } from './store';

/** SQS's limits: a message, and the bodies of one batch together, up to 1 MiB (since August 2025). */
const MAX_BATCH = 10;
const MAX_MESSAGE_BYTES = 1024 * 1024;
const MAX_DELAY_SECONDS = 900;
const MAX_VISIBILITY_SECONDS = 43_200;

/** The account in local queue URLs, as SQS puts the account id before the queue name. */
export const LOCAL_ACCOUNT = '000000000000';

export const arn = (name: string) => `arn:aws:sqs:us-east-1:${LOCAL_ACCOUNT}:${name}`;

export class SqsApiError extends Error {
  /** @param code the `__type` without its namespace, which the SDK names its error after */
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const invalid = (message: string) => new SqsApiError('InvalidParameterValue', message);

export interface SqsApiContext {
  store: QueueStore;
  queues: readonly string[];
  /** A queue's visibility time-out, for a receive that names none. */
  visibilityMs: (queue: string) => number;
  /** Receives, moving what must go to the dead-letter queue and reporting it. */
  receive: (queue: string, max: number, visibilityMs: number) => StoredMessage[];
  /** Sends and wakes the poller. */
  send: (queue: string, entries: SendEntry[]) => string[];
  /** Wakes the poller after a visibility change. */
  changed: () => void;
}

type Input = Record<string, unknown>;
type Action = (context: SqsApiContext, queue: string, input: Input) => Input;

const ACTIONS: Record<string, Action> = {
  SendMessageBatch(context, queue, input) {
    const entries = batchEntries(input).map((entry) => ({ id: String(entry.Id), ...sendEntry(entry) }));
    const total = entries.reduce((sum, entry) => sum + Buffer.byteLength(entry.body), 0);
    if (total > MAX_MESSAGE_BYTES) {
      throw new SqsApiError(
        'BatchRequestTooLong',
        `The batch's bodies total ${total} bytes, over ${MAX_MESSAGE_BYTES}`,
      );
    }
    const ids = context.send(queue, entries);
    return {
      Successful: entries.map((entry, i) => ({
        Id: entry.id,
        MessageId: ids[i],
        MD5OfMessageBody: md5(entry.body),
      })),
      Failed: [],
    };
  },
  ReceiveMessage(context, queue, input) {
    const max = integer(input.MaxNumberOfMessages ?? 1, 1, MAX_BATCH, 'MaxNumberOfMessages');
    const visibilityMs =
      input.VisibilityTimeout === undefined
        ? context.visibilityMs(queue)
        : integer(input.VisibilityTimeout, 0, MAX_VISIBILITY_SECONDS, 'VisibilityTimeout') * 1000;
    return { Messages: context.receive(queue, max, visibilityMs).map(sqsMessage) };
  },
  DeleteMessageBatch(context, queue, input) {
    const entries = batchEntries(input);
    const handles = entries.map((entry) => String(entry.ReceiptHandle));
    // As SQS: a receipt handle that is no longer the latest succeeds and deletes nothing.
    context.store.deleteAll(queue, handles);
    return { Successful: entries.map((entry) => ({ Id: String(entry.Id) })), Failed: [] };
  },
  ChangeMessageVisibility(context, queue, input) {
    const seconds = integer(input.VisibilityTimeout, 0, MAX_VISIBILITY_SECONDS, 'VisibilityTimeout');
    if (!context.store.changeVisibility(queue, String(input.ReceiptHandle), seconds * 1000)) {
      throw new SqsApiError(
        'ReceiptHandleIsInvalid',
        'The receipt handle is not the latest of a message in flight: it was deleted or received again',
      );
    }
    context.changed();
    return {};
  },
};

/** Answers one request: the response's status and body. */
export function answerSqs(context: SqsApiContext, target: string, text: string) {
  try {
    const action = ACTIONS[target.replace(/^AmazonSQS\./, '')];
    if (!action) throw new SqsApiError('InvalidAction', `The local queue does not implement ${target}`);
    const input = parseObject(text);
    return { status: 200, body: action(context, queueName(context, input.QueueUrl), input) };
  } catch (error) {
    // Anything else is the store's fault (say, the file busy): a 5xx, which the SDK retries.
    const [status, code] = error instanceof SqsApiError ? [400, error.code] : [500, 'InternalError'];
    return {
      status,
      body: {
        __type: `com.amazonaws.sqs#${code}`,
        message: error instanceof Error ? error.message : String(error),
      },
    };
  }
}

function parseObject(text: string): Input {
  try {
    const input = JSON.parse(text);
    if (typeof input === 'object' && input !== null && !Array.isArray(input)) return input;
  } catch {
    // answered below
  }
  throw invalid('The request body is not a JSON object');
}

function queueName(context: SqsApiContext, url: unknown) {
  const name = String(url).split('/').pop() ?? '';
  if (!context.queues.includes(name)) {
    throw new SqsApiError('QueueDoesNotExist', `The specified queue does not exist: ${url}`);
  }
  return name;
}

function batchEntries(input: Input): Input[] {
  const entries = input.Entries;
  if (!Array.isArray(entries) || entries.length === 0) {
    throw new SqsApiError('EmptyBatchRequest', 'There should be at least one entry in the request');
  }
  if (entries.length > MAX_BATCH) {
    throw new SqsApiError('TooManyEntriesInBatchRequest', `At most ${MAX_BATCH} entries per batch`);
  }
  return entries.map((entry) => Object(entry));
}

function sendEntry(input: Input): SendEntry {
  const body = input.MessageBody;
  if (typeof body !== 'string' || body.length === 0) throw invalid('MessageBody must be a non-empty string');
  return { body, delayMs: integer(input.DelaySeconds ?? 0, 0, MAX_DELAY_SECONDS, 'DelaySeconds') * 1000 };
}

/** An integer parameter within [min, max]. */
function integer(value: unknown, min: number, max: number, name: string) {
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
      ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt),
    },
  };
}
