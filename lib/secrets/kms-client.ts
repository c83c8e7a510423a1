/**
 * KMS's GenerateDataKey and Decrypt, spoken directly in its AWS JSON 1.1 protocol for the reason
 * lib/queue/sqs-client.ts speaks SQS's: `@aws-sdk/client-kms` would add its whole protocol stack
 * to the functions that sign, for two calls made once per cold start.
 */

import { createAwsJsonPost, parseJsonObject } from '../aws/json-protocol';
import { ServiceUnavailableError } from '../errors';
import type { Kms } from './kms-data-key';

export function createKms(): Kms {
  const region = process.env.AWS_REGION;
  const endpoint = new URL(process.env.AWS_ENDPOINT_URL_KMS ?? `https://kms.${region}.amazonaws.com`);
  const post = createAwsJsonPost({
    service: 'kms',
    contentType: 'application/x-amz-json-1.1',
    connectionTimeoutMs: 1000,
    requestTimeoutMs: 3000,
  });

  const call = async (action: string, input: Record<string, string>): Promise<Record<string, unknown>> => {
    let answer: { status: number; text: string };
    try {
      answer = await post(endpoint, `TrentService.${action}`, JSON.stringify(input));
    } catch (error) {
      throw new ServiceUnavailableError('The signing key service could not be reached; try again', 1, {
        cause: error,
      });
    }
    const json = parseJsonObject(answer.text);
    if (answer.status < 300) return json;
    const cause = new Error(
      `KMS ${action}: ${answer.status} ${String(json.__type ?? '')} ${String(json.message ?? '')}`,
    );
    throw new ServiceUnavailableError('The signing key service refused the request; try again later', 5, {
      cause,
    });
  };
  const bytes = (value: unknown) => Buffer.from(String(value ?? ''), 'base64');

  return {
    async generateDataKey(keyId) {
      const out = await call('GenerateDataKey', { KeyId: keyId, KeySpec: 'AES_256' });
      return { plaintext: bytes(out.Plaintext), ciphertext: bytes(out.CiphertextBlob) };
    },
    async decrypt(keyId, ciphertext) {
      const out = await call('Decrypt', { KeyId: keyId, CiphertextBlob: ciphertext.toString('base64') });
      return bytes(out.Plaintext);
    },
  };
}
