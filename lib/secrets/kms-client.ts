/**
 * KMS's GenerateDataKey and Decrypt, spoken directly in its AWS JSON 1.1 protocol, for the same
 * reason lib/queue/sqs-client.ts speaks SQS: `@aws-sdk/client-kms` would add its whole protocol
 * stack to the functions that sign, for two calls, while SigV4, SHA-256, the credential chain and
 * the HTTP handler are already in every bundle for DynamoDB. Called once per cold start.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/protocols';
import { NodeHttpHandler, streamCollector } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import { ServiceUnavailableError } from '../errors';
import type { Kms } from './kms-data-key';

export function createKms(): Kms {
  const region = process.env.AWS_REGION;
  if (!region) throw new Error('AWS_REGION is not set: KMS calls need a region to sign for');
  const endpoint = new URL(process.env.AWS_ENDPOINT_URL_KMS ?? `https://kms.${region}.amazonaws.com`);
  const signer = new SignatureV4({
    service: 'kms',
    region,
    credentials: defaultProvider(),
    sha256: Sha256,
    applyChecksum: false,
  });
  const http = new NodeHttpHandler({
    connectionTimeout: 1000,
    requestTimeout: 3000,
    throwOnRequestTimeout: true,
  });

  const call = async (action: string, input: Record<string, string>): Promise<Record<string, unknown>> => {
    const body = JSON.stringify(input);
    const request = await signer.sign(
      new HttpRequest({
        method: 'POST',
        protocol: endpoint.protocol,
        hostname: endpoint.hostname,
        port: endpoint.port ? Number(endpoint.port) : undefined,
        path: '/',
        headers: {
          host: endpoint.host,
          'content-type': 'application/x-amz-json-1.1',
          'content-length': String(Buffer.byteLength(body)),
          'x-amz-target': `TrentService.${action}`,
        },
        body,
      }),
    );
    let status: number;
    let text: string;
    try {
      const { response } = await http.handle(request as HttpRequest);
      status = response.statusCode;
      text = Buffer.from(await streamCollector(response.body)).toString('utf8');
    } catch (error) {
      throw new ServiceUnavailableError('The signing key service could not be reached; try again', 1, {
        cause: error,
      });
    }
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text || '{}') as Record<string, unknown>;
    } catch {}
    if (status < 300) return json;
    const cause = new Error(
      `KMS ${action}: ${status} ${String(json.__type ?? '')} ${String(json.message ?? '')}`,
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
