/**
 * The SQS sender against a real HTTP server on 127.0.0.1 standing in for SQS: what goes on the
 * wire (AWS JSON 1.0, SigV4 checked by signing the received request again), and how answers,
 * SQS errors, time-outs and refused connections come back.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../lib/errors';
import { createSqsSend, SqsError } from '../../lib/queue/sqs-client';
import { SqsQueue } from '../../lib/queue/sqs-queue';
import { freePort } from '../../scripts/dynamodb-local.mjs';

const CREDENTIALS = {
  accessKeyId: 'AKIDSQSTEST',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYSQSTESTKEY',
  sessionToken: 'session-token/with+odd=characters',
};

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
/** What the stand-in answers: status and JSON body, or 'hang' to never answer. */
type Answer = { status: number; body: unknown } | 'hang';

let server: Server;
let port: number;
let received: Received[] = [];
let script: ((request: Received) => Answer)[] = [];
const savedEnv = { ...process.env };

/** SQS's answer to a batch when every entry went in. */
function allSent(request: Received): Answer {
  const entries = (JSON.parse(request.body) as { Entries?: { Id: string }[] }).Entries ?? [];
  return { status: 200, body: { Successful: entries.map((e) => ({ Id: e.Id, MessageId: `mid-${e.Id}` })) } };
}

beforeAll(async () => {
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    AWS_SESSION_TOKEN: CREDENTIALS.sessionToken,
  });
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(request);
      const answer = (script.shift() ?? allSent)(request);
      if (answer === 'hang') return;
      res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterEach(() => {
  received = [];
  script = [];
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  process.env = savedEnv;
});

const queueUrl = (name: string) => `http://127.0.0.1:${port}/123456789012/${name}`;
const urls = () => ({
  'fan-out': queueUrl('fan'),
  delivery: queueUrl('del'),
  'dead-letter': queueUrl('dlq'),
});
const once = (status: number, body: unknown) => (): Answer => ({ status, body });

/**
 * Signs the received request again, as SQS would to check it: over the headers it names as
 * signed, at the time it carries, with the secret only the two sides know.
 */
async function expectValidSignature(request: Received): Promise<void> {
  const authorization = String(request.headers.authorization);
  const match = /^AWS4-HMAC-SHA256 Credential=([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
    authorization,
  );
  expect(match, authorization).not.toBeNull();
  const [, credential = '', signedHeaders = '', signature = ''] = match ?? [];
  const amzDate = String(request.headers['x-amz-date']);
  expect(credential).toBe(`${CREDENTIALS.accessKeyId}/${amzDate.slice(0, 8)}/us-east-1/sqs/aws4_request`);
  const names = signedHeaders.split(';');
  expect(names).toEqual(
    expect.arrayContaining(['content-type', 'host', 'x-amz-date', 'x-amz-security-token', 'x-amz-target']),
  );
  const headers: Record<string, string> = {};
  for (const name of names) headers[name] = String(request.headers[name]);
  const signer = new SignatureV4({
    service: 'sqs',
    region: 'us-east-1',
    credentials: CREDENTIALS,
    sha256: Sha256,
    applyChecksum: false,
  });
  const signingDate = new Date(
    amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
  );
  const resigned = await signer.sign(
    new HttpRequest({
      method: request.method,
      protocol: 'http:',
      hostname: '127.0.0.1',
      port,
      path: request.path,
      headers,
      body: request.body,
    }),
    { signingDate },
  );
  expect(String(resigned.headers.authorization)).toBe(
    `AWS4-HMAC-SHA256 Credential=${credential}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  );
}

describe('SQS sender, on the wire', () => {
  it('posts SendMessageBatch as AWS JSON 1.0 to the queue URL origin, SigV4-signed with the session token', async () => {
    await new SqsQueue(urls()).send(
      'delivery',
      Array.from({ length: 12 }, (_, i) => ({ body: `message ${i} ✓`, delayMs: i === 0 ? 1500 : 0 })),
    );
    expect(received).toHaveLength(2);
    const bodies = [];
    for (const request of received) {
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/');
      expect(request.headers.host).toBe(`127.0.0.1:${port}`);
      expect(request.headers['x-amz-target']).toBe('AmazonSQS.SendMessageBatch');
      expect(request.headers['content-type']).toBe('application/x-amz-json-1.0');
      expect(request.headers['x-amz-security-token']).toBe(CREDENTIALS.sessionToken);
      expect(Number(request.headers['content-length'])).toBe(Buffer.byteLength(request.body));
      await expectValidSignature(request);
      bodies.push(JSON.parse(request.body));
    }
    const [first, second] = bodies.sort((a, b) => b.Entries.length - a.Entries.length);
    expect(first.QueueUrl).toBe(queueUrl('del'));
    expect(first.Entries).toHaveLength(10);
    expect(first.Entries[0]).toEqual({ Id: '0', MessageBody: 'message 0 ✓', DelaySeconds: 2 });
    expect(first.Entries[1]).toEqual({ Id: '1', MessageBody: 'message 1 ✓' });
    expect(second).toEqual({
      QueueUrl: queueUrl('del'),
      Entries: [
        { Id: '0', MessageBody: 'message 10 ✓' },
        { Id: '1', MessageBody: 'message 11 ✓' },
      ],
    });
  });

  it('posts ChangeMessageVisibility, signed, and accepts its empty answer', async () => {
    script = [once(200, {})];
    await new SqsQueue(urls()).changeVisibility('delivery', 'receipt+handle/1', 2500);
    const [request] = received;
    expect(request?.headers['x-amz-target']).toBe('AmazonSQS.ChangeMessageVisibility');
    expect(JSON.parse(request?.body ?? '')).toEqual({
      QueueUrl: queueUrl('del'),
      ReceiptHandle: 'receipt+handle/1',
      VisibilityTimeout: 3,
    });
    if (request) await expectValidSignature(request);
  });

  it('the signature check itself fails for a request changed after signing', async () => {
    await new SqsQueue(urls()).send('fan-out', [{ body: 'x' }]);
    const [request] = received;
    if (!request) throw new Error('no request');
    await expect(
      expectValidSignature({ ...request, body: request.body.replace('x', 'y') }),
    ).rejects.toThrow();
  });

  it('re-sends only the entries SQS reports as Failed', async () => {
    script = [
      once(200, {
        Successful: [{ Id: '0', MessageId: 'a' }],
        Failed: [{ Id: '1', SenderFault: false, Code: 'InternalError', Message: 'try again' }],
      }),
    ];
    await new SqsQueue(urls()).send('delivery', [{ body: 'a' }, { body: 'b' }]);
    expect(received.map((r) => JSON.parse(r.body).Entries)).toEqual([
      [
        { Id: '0', MessageBody: 'a' },
        { Id: '1', MessageBody: 'b' },
      ],
      [{ Id: '1', MessageBody: 'b' }],
    ]);
  });
});

describe('SQS sender, errors and retries', () => {
  const throttled = once(400, {
    __type: 'com.amazonaws.sqs#ThrottlingException',
    message: 'Rate exceeded',
  });

  it('retries a throttling answer (400 ThrottlingException), then succeeds', async () => {
    script = [throttled];
    await new SqsQueue(urls()).send('fan-out', [{ body: 'x' }]);
    expect(received).toHaveLength(2);
    expect(received[0]?.body).toBe(received[1]?.body);
    // Each attempt is signed afresh.
    for (const request of received) await expectValidSignature(request);
  });

  it('retries a 500, then succeeds', async () => {
    script = [once(500, { __type: 'com.amazonaws.sqs#InternalError', message: 'oops' })];
    await new SqsQueue(urls()).send('fan-out', [{ body: 'x' }]);
    expect(received).toHaveLength(2);
  });

  it('gives up after 3 attempts, with the SQS error as the cause of a 503', async () => {
    script = [throttled, throttled, throttled, throttled];
    const error = await new SqsQueue(urls()).send('fan-out', [{ body: 'x' }]).catch((e: unknown) => e);
    expect(received).toHaveLength(3);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    const cause = (error as Error).cause;
    expect(cause).toBeInstanceOf(SqsError);
    expect(cause).toMatchObject({ name: 'ThrottlingException', status: 400, retryable: true });
    expect((cause as Error).message).toContain('Rate exceeded');
  });

  it('does not retry an error that will not pass, and SqsQueue answers 503', async () => {
    script = [
      once(400, {
        __type: 'com.amazonaws.sqs#QueueDoesNotExist',
        message: 'The specified queue does not exist.',
      }),
    ];
    const error = await new SqsQueue(urls()).send('delivery', [{ body: 'x' }]).catch((e: unknown) => e);
    expect(received).toHaveLength(1);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as ServiceUnavailableError).retryAfterSeconds).toBe(1);
    expect((error as Error).cause).toMatchObject({
      name: 'QueueDoesNotExist',
      status: 400,
      retryable: false,
      message: 'SQS SendMessageBatch: 400 QueueDoesNotExist The specified queue does not exist.',
    });
  });

  it('maps an error answer without a JSON body to its status', async () => {
    script = [() => ({ status: 403, body: 'not json' })];
    const send = createSqsSend({ backoffBaseMs: 1 });
    await expect(
      send({ action: 'SendMessageBatch', input: { QueueUrl: queueUrl('q'), Entries: [] } }),
    ).rejects.toMatchObject({ name: 'Http403', status: 403, retryable: false });
  });

  it('times out an answer that never comes, and retries it', async () => {
    script = [() => 'hang', () => 'hang'];
    const send = createSqsSend({ requestTimeoutMs: 200, maxAttempts: 2, backoffBaseMs: 1 });
    const started = Date.now();
    const error = await send({
      action: 'SendMessageBatch',
      input: { QueueUrl: queueUrl('q'), Entries: [] },
    }).catch((e: unknown) => e);
    expect(received).toHaveLength(2);
    expect(error).toMatchObject({ name: 'NetworkError', retryable: true });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('retries a refused connection, then fails', async () => {
    const deadPort = await freePort(); // nothing listens there
    const send = createSqsSend({ backoffBaseMs: 1 });
    const error = await send({
      action: 'ChangeMessageVisibility',
      input: {
        QueueUrl: `http://127.0.0.1:${deadPort}/123456789012/q`,
        ReceiptHandle: 'r',
        VisibilityTimeout: 0,
      },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'NetworkError', retryable: true });
    expect(String((error as Error).message)).toMatch(/ECONNREFUSED/);
  });
});
