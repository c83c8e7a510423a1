/**
 * One signed POST in the AWS JSON protocol (SQS speaks 1.0, KMS 1.1), for the services this one
 * calls directly rather than through their SDK clients (lib/queue/sqs-client.ts,
 * lib/secrets/kms-client.ts): SigV4, SHA-256, the default credential chain and the keep-alive HTTP
 * handler are already in every bundle for DynamoDB, so a client costs only its own calls.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/protocols';
import { NodeHttpHandler, streamCollector } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';

export interface AwsJsonOptions {
  /** The signing name: `sqs`, `kms`. */
  service: string;
  /** `application/x-amz-json-1.0` or `-1.1`. */
  contentType: string;
  connectionTimeoutMs: number;
  requestTimeoutMs: number;
}

/** Sends `body` to `url`'s origin with `x-amz-target: target`; rejects only for transport failures. */
export type AwsJsonPost = (
  url: URL,
  target: string,
  body: string,
) => Promise<{ status: number; text: string }>;

/** Signs for AWS_REGION with credentials from the default chain (environment first, as in Lambda). */
export function createAwsJsonPost(options: AwsJsonOptions): AwsJsonPost {
  const region = process.env.AWS_REGION;
  if (!region) throw new Error(`AWS_REGION is not set: ${options.service} calls need a region to sign for`);
  const signer = new SignatureV4({
    service: options.service,
    region,
    credentials: defaultProvider(),
    sha256: Sha256,
    // The body hash goes into the signature anyway; the JSON services do not need it as a header.
    applyChecksum: false,
  });
  // Keep-alive agents (its default) so that a warm Lambda reuses its connections.
  const http = new NodeHttpHandler({
    connectionTimeout: options.connectionTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    throwOnRequestTimeout: true,
  });
  return async (url, target, body) => {
    const request = await signer.sign(
      new HttpRequest({
        method: 'POST',
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port ? Number(url.port) : undefined,
        path: '/',
        headers: {
          host: url.host,
          'content-type': options.contentType,
          'content-length': String(Buffer.byteLength(body)),
          'x-amz-target': target,
        },
        body,
      }),
    );
    // The signer returns a clone of the HttpRequest it was given, typed only as the interface.
    const { response } = await http.handle(request as HttpRequest);
    return {
      status: response.statusCode,
      text: Buffer.from(await streamCollector(response.body)).toString('utf8'),
    };
  };
}

/** A JSON object body; a proxy or load balancer in the way may answer otherwise, which reads as empty. */
export function parseJsonObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text || '{}');
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
