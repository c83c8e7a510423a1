/**
 * The KMS adapter (the AWS SDK's KMS client inside) against a stand-in KMS on 127.0.0.1
 * (AWS_ENDPOINT_URL_KMS; KMS cannot run here): what it asks for, and how answers and failures map
 * to data keys and 503s.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../lib/errors';
import { awsKms } from '../../lib/secrets/kms-data-key';

interface Seen {
  headers: http.IncomingHttpHeaders;
  body: Record<string, string>;
}
const seen: Seen[] = [];
let answer: { status: number; body: unknown } = { status: 200, body: {} };
let server: http.Server;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      seen.push({ headers: req.headers, body: JSON.parse(raw) });
      res
        .writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.1' })
        .end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env.AWS_ENDPOINT_URL_KMS = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  delete process.env.AWS_ENDPOINT_URL_KMS;
  if (server.listening) await new Promise((resolve) => server.close(resolve));
});

const KEY = 'arn:aws:kms:us-east-1:123456789012:key/abc';

describe('KMS adapter', () => {
  it('GenerateDataKey: an AES_256 key under the stack key, signed for kms, both halves decoded', async () => {
    const plaintext = Buffer.alloc(32, 1);
    const ciphertext = Buffer.from('wrapped-by-kms');
    answer = {
      status: 200,
      body: {
        Plaintext: plaintext.toString('base64'),
        CiphertextBlob: ciphertext.toString('base64'),
        KeyId: KEY,
      },
    };
    const generated = await awsKms().generateDataKey(KEY);
    expect(generated).toEqual({ plaintext, ciphertext });
    const request = seen.at(-1) as Seen;
    expect(request.body).toEqual({ KeyId: KEY, KeySpec: 'AES_256' });
    expect(request.headers['x-amz-target']).toBe('TrentService.GenerateDataKey');
  });

  it('Decrypt: sends the wrapped key, returns the plaintext', async () => {
    answer = { status: 200, body: { Plaintext: Buffer.alloc(32, 2).toString('base64'), KeyId: KEY } };
    expect(await awsKms().decrypt(KEY, Buffer.from('wrapped-by-kms'))).toEqual(Buffer.alloc(32, 2));
    expect(seen.at(-1)?.body).toEqual({
      KeyId: KEY,
      CiphertextBlob: Buffer.from('wrapped-by-kms').toString('base64'),
    });
    expect(seen.at(-1)?.headers['x-amz-target']).toBe('TrentService.Decrypt');
  });

  it('a refusal (access denied) is a 503 with Retry-After 5, its reason kept as the cause and not shown', async () => {
    answer = { status: 400, body: { __type: 'AccessDeniedException', message: 'not allowed' } };
    const failure = await awsKms()
      .decrypt(KEY, Buffer.from('x'))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServiceUnavailableError);
    expect((failure as ServiceUnavailableError).retryAfterSeconds).toBe(5);
    expect((failure as ServiceUnavailableError).detail).not.toContain('AccessDenied');
    expect((failure as { cause?: unknown }).cause).toMatchObject({ name: 'AccessDeniedException' });
  });

  it('an unreachable KMS is a 503', async () => {
    // The process's one client keeps the stand-in's address: the stand-in goes away (the last test).
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    const failure = await awsKms()
      .generateDataKey(KEY)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServiceUnavailableError);
    expect((failure as ServiceUnavailableError).retryAfterSeconds).toBe(1);
  });
});
