/**
 * SigV4 for API Gateway (`execute-api`), with AWS's maintained signer and the standard credential
 * chain (environment, shared config and SSO, web identity, container and instance roles): the
 * headers that make `fetch(url, { method, headers, body })` an IAM-authorised call. Used by
 * `npm run smoke` and the node agent; any other client of a deployed stage can use it the same way.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

/**
 * One signer per region and credentials (the chain's credentials are resolved once and refreshed
 * when they expire), giving each request's headers with its signature added, `host` included.
 */
export function requestSigner({
  region,
  credentials,
}: {
  region: string;
  credentials?: AwsCredentialIdentityProvider | AwsCredentialIdentity;
}): (request: {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
}) => Promise<Record<string, string>> {
  const signer = new SignatureV4({
    service: 'execute-api',
    region,
    credentials: credentials ?? defaultProvider(),
    sha256: Sha256,
  });
  return async ({ method, url, headers = {}, body }) => {
    const target = new URL(url);
    const signed = await signer.sign(
      new HttpRequest({
        method,
        protocol: target.protocol,
        hostname: target.hostname,
        ...(target.port ? { port: Number(target.port) } : {}),
        path: target.pathname,
        query: Object.fromEntries(target.searchParams),
        headers: { ...headers, host: target.host },
        ...(body === undefined ? {} : { body }),
      }),
    );
    return signed.headers as Record<string, string>;
  };
}
