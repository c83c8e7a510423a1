/**
 * The two SQS calls this service makes, spoken directly in SQS's AWS JSON 1.0 protocol.
 *
 * Why not `@aws-sdk/client-sqs`: it added ~36 KiB (minified) to every function that enqueues and
 * ~10% to their cold start, for two calls. Everything a signed AWS call needs — SigV4, SHA-256,
 * the credential chain, a keep-alive HTTP handler with time-outs — is already in each bundle for
 * the DynamoDB client, so reusing those pieces costs only this file.
 */
import { createAwsJsonPost, parseJsonObject } from '../aws/json-protocol';

export interface SendMessageBatchRequestEntry {
  Id: string;
  MessageBody: string;
  DelaySeconds?: number;
}

export interface BatchResultErrorEntry {
  Id: string;
  SenderFault: boolean;
  Code: string;
  Message?: string;
}

export interface SendMessageBatchResult {
  Successful?: { Id: string; MessageId?: string }[];
  Failed?: BatchResultErrorEntry[];
}

export interface ChangeMessageVisibilityInput {
  QueueUrl: string;
  ReceiptHandle: string;
  VisibilityTimeout: number;
}

/** One call, as the queue adapter hands it to the sender (the seam tests stand in for). */
export type SqsCall =
  | { action: 'SendMessageBatch'; input: { QueueUrl: string; Entries: SendMessageBatchRequestEntry[] } }
  | { action: 'ChangeMessageVisibility'; input: ChangeMessageVisibilityInput };

/** ChangeMessageVisibility answers nothing worth reading, so both calls share SendMessageBatch's result. */
export type SqsSend = (call: SqsCall) => Promise<SendMessageBatchResult>;

/** An error SQS answered (`name` is its `__type` without the namespace), or a transport failure. */
export class SqsError extends Error {
  constructor(
    override readonly name: string,
    message: string,
    readonly status: number | undefined,
    readonly retryable: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface SqsSenderOptions {
  /** Attempts per call, the first included (the SDK client this replaces was set to 3). */
  maxAttempts?: number;
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Upper bound of the first back-off; it doubles per attempt, and a wait is random below it (full jitter). */
  backoffBaseMs?: number;
}

// AWS's throttling codes as SQS may answer them; the SDK's retry strategy treats the same as retryable.
const THROTTLING = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'KmsThrottled',
]);

/**
 * A sender for AWS_REGION, credentials from the default chain (environment first, as in Lambda,
 * with its session token), memoised by the chain until they near expiry.
 */
export function createSqsSend({
  maxAttempts = 3,
  connectionTimeoutMs = 1000,
  requestTimeoutMs = 3000,
  backoffBaseMs = 100,
}: SqsSenderOptions = {}): SqsSend {
  const post = createAwsJsonPost({
    service: 'sqs',
    contentType: 'application/x-amz-json-1.0',
    connectionTimeoutMs,
    requestTimeoutMs,
  });

  const attempt = async ({ action, input }: SqsCall): Promise<SendMessageBatchResult> => {
    let status: number;
    let text: string;
    try {
      // A queue URL is on SQS's regional endpoint, so its origin is where the call goes.
      ({ status, text } = await post(new URL(input.QueueUrl), `AmazonSQS.${action}`, JSON.stringify(input)));
    } catch (error) {
      // Refused, reset or timed out: worth another try. A batch SQS took before a time-out is then
      // sent twice, which at-least-once delivery allows (the SDK client did the same).
      throw new SqsError('NetworkError', String(error), undefined, true, { cause: error });
    }
    const json = parseJsonObject(text);
    // Trusted to be the documented shape: it comes from SQS over a signed call.
    if (status < 300) return json as SendMessageBatchResult;
    // `__type` is "com.amazonaws.sqs#QueueDoesNotExist" or similar; an error code may carry ":…".
    const code = String(json.__type ?? `Http${status}`)
      .replace(/^.*#/, '')
      .replace(/:.*$/, '');
    throw new SqsError(
      code,
      `SQS ${action}: ${status} ${code} ${String(json.message ?? json.Message ?? '')}`.trimEnd(),
      status,
      status >= 500 || status === 429 || THROTTLING.has(code),
    );
  };

  return async (call) => {
    for (let n = 1; ; n++) {
      try {
        return await attempt(call);
      } catch (error) {
        if (!(error instanceof SqsError && error.retryable) || n >= maxAttempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * backoffBaseMs * 2 ** (n - 1)));
      }
    }
  };
}
