/**
 * The two KMS calls as they leave the process: AWS JSON 1.1, SigV4-signed for the `kms` service,
 * sent to a stand-in KMS on 127.0.0.1 (AWS_ENDPOINT_URL_KMS), whose answers and failures map to
 * data keys and 503s.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../lib/errors';
import { createKms } from '../../lib/secrets/kms-client';

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
  await new Promise((resolve) => server.close(resolve));
});

const KEY = 'arn:aws:kms:us-east-1:123456789012:key/abc';

describe('KMS client', () => {
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
    const generated = await createKms().generateDataKey(KEY);
    expect(generated).toEqual({ plaintext, ciphertext });
    const request = seen.at(-1) as Seen;
    expect(request.body).toEqual({ KeyId: KEY, KeySpec: 'AES_256' });
    expect(request.headers['x-amz-target']).toBe('TrentService.GenerateDataKey');
    expect(request.headers['content-type']).toBe('application/x-amz-json-1.1');
    expect(request.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/kms\/aws4_request/,
    );
  });

  it('Decrypt: sends the wrapped key, returns the plaintext', async () => {
    answer = { status: 200, body: { Plaintext: Buffer.alloc(32, 2).toString('base64'), KeyId: KEY } };
    expect(await createKms().decrypt(KEY, Buffer.from('wrapped-by-kms'))).toEqual(Buffer.alloc(32, 2));
    expect(seen.at(-1)?.body).toEqual({
      KeyId: KEY,
      CiphertextBlob: Buffer.from('wrapped-by-kms').toString('base64'),
    });
    expect(seen.at(-1)?.headers['x-amz-target']).toBe('TrentService.Decrypt');
  });

  it('a refusal (access denied, throttling) is a 503, its reason kept as the cause and not shown', async () => {
    answer = { status: 400, body: { __type: 'AccessDeniedException', message: 'not allowed' } };
    const failure = await createKms()
      .decrypt(KEY, Buffer.from('x'))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServiceUnavailableError);
    expect((failure as ServiceUnavailableError).detail).not.toContain('AccessDenied');
    expect(String((failure as { cause?: unknown }).cause)).toContain('AccessDeniedException');
  });

  it('an unreachable KMS is a 503', async () => {
    const url = process.env.AWS_ENDPOINT_URL_KMS;
    process.env.AWS_ENDPOINT_URL_KMS = 'http://127.0.0.1:9';
    try {
      await expect(createKms().generateDataKey(KEY)).rejects.toBeInstanceOf(ServiceUnavailableError);
    } finally {
      process.env.AWS_ENDPOINT_URL_KMS = url;
    }
  });
});
