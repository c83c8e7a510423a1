export type QueueName = 'fan-out' | 'delivery' | 'dead-letter' | 'cleanup';

export interface Consumer {
  queue: 'fan-out' | 'delivery' | 'cleanup';
  /** The function's key in serverless.yml. */
  functionKey: string;
  batchSize: number;
  /** The queue's visibility time-out. */
  visibilityMs: number;
  /** Invocations at once. */
  concurrency: number;
  /** Receives after which a message is moved to the dead-letter queue. */
  maxReceiveCount: number;
}

export interface MessageView {
  messageId: string;
  receiptHandle: string | undefined;
  body: string;
  receiveCount: number;
  sentAt: number;
  firstReceivedAt: number | undefined;
  visibleAt: number;
  deadLetterSourceQueue: string | undefined;
}

export interface SqsLikeEvent {
  Records: Array<{
    messageId: string;
    receiptHandle: string;
    body: string;
    attributes: {
      ApproximateReceiveCount: string;
      SentTimestamp: string;
      SenderId: string;
      ApproximateFirstReceiveTimestamp: string;
    };
    messageAttributes: Record<string, never>;
    md5OfBody: string;
    eventSource: string;
    eventSourceARN: string;
    awsRegion: string;
  }>;
}

export type Invoke = (functionKey: string, event: SqsLikeEvent) => Promise<unknown>;

export interface LocalQueueOptions {
  /** 0 or undefined: a free port. */
  port?: number;
  /** The SQLite file the messages are kept in; undefined: a new temporary file, removed on stop. */
  path?: string;
  consumers?: Consumer[];
  onDeadLetter?: (message: { body: string; deadLetterSourceQueue: string | undefined }) => void;
  /** Problems of the poller (default console.error). */
  log?: (text: string) => void;
}

/** The variables the functions read their queue URLs from. */
export interface QueueEnv {
  FANOUT_QUEUE_URL: string;
  DELIVERY_QUEUE_URL: string;
  DEAD_LETTER_QUEUE_URL: string;
  CLEANUP_QUEUE_URL: string;
  AWS_ENDPOINT_URL_SQS: string;
}

export interface LocalQueue {
  /** The endpoint: SQS's JSON protocol at POST /, the queue URLs below it. */
  url: string;
  port: number;
  /** The SQLite file. */
  path: string;
  /** The queue URLs, as the functions' environment (serverless.yml maps them on the local stage). */
  env: QueueEnv;
  startPolling(invoke: Invoke): void;
  send(name: QueueName, messages: { body: string; delayMs?: number }[]): string[];
  messages(name: QueueName): MessageView[];
  /** The bodies on the dead-letter queue, parsed when they are JSON. */
  deadLetters(): unknown[];
  counts(): Record<QueueName, { total: number; visible: number; hidden: number }>;
  /** Per queue, the messages and the SQS-equivalent requests so far (batch calls of 10). */
  stats(): Record<
    QueueName,
    {
      sent: number;
      sendRequests: number;
      received: number;
      receiveRequests: number;
      deleted: number;
      deleteRequests: number;
      visibilityChanges: number;
    }
  >;
  /** True when the polled queues (fan-out, delivery, cleanup) are empty and no invocation is running; GET /idle answers the same. */
  idle(): boolean;
  stop(): Promise<void>;
}

export const QUEUE_NAMES: readonly QueueName[];
export const DEFAULT_CONSUMERS: Consumer[];
export function queueEnv(url: string): QueueEnv;
export function sqsEvent(queueName: string, messages: unknown[]): SqsLikeEvent;
/** Thrown by lambdaInvoker's invoke when the function was never reached (connection refused): nothing ran. */
export class NotInvokedError extends Error {}
export function lambdaInvoker(options: {
  port: number;
  service?: string;
  stage?: string;
  timeoutMs?: number;
}): (functionKey: string, event: unknown) => Promise<unknown>;
export function startLocalQueue(options?: LocalQueueOptions): Promise<LocalQueue>;
