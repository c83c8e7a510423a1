// @ts-check
/**
 * SigV4 for API Gateway (`execute-api`), with AWS's maintained signer and the standard credential
 * chain (environment, shared config and SSO, web identity, container and instance roles): the
 * headers that make `fetch(url, { method, headers, body })` an IAM-authorised call. Used by
 * `npm run smoke`; any other client of a deployed stage can use it the same way.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * @param {{ method: string, url: string, headers?: Record<string, string>, body?: string }} request
 * @param {{ region: string, credentials?: import('@smithy/types').AwsCredentialIdentityProvider
 *   | import('@smithy/types').AwsCredentialIdentity }} options
 * @returns {Promise<Record<string, string>>} the request's headers with the signature's added
 */
export async function signRequest({ method, url, headers = {}, body }, { region, credentials }) {
  const target = new URL(url);
  const signer = new SignatureV4({
    service: 'execute-api',
    region,
    credentials: credentials ?? defaultProvider(),
    sha256: Sha256,
  });
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
  return /** @type {Record<string, string>} */ (signed.headers);
}
