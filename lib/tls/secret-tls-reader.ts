import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ConfigError } from '../config';
import { traced } from '../tracing';
import type { ClientTlsMaterial, ClientTlsReader } from './client-tls';

/**
 * The deployed reader: one GetSecretValue of the secret the deploy parameter `endpointTlsSecret`
 * names, a JSON object `{"certificate", "privateKey", "caCertificates"}` of PEM strings (each
 * optional; certificate and key together). Its value is never logged: a malformed secret is
 * reported by what is wrong with it.
 */
export function secretTlsReader(secretId: string): ClientTlsReader {
  const client = traced(
    new SecretsManagerClient({
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 1000, requestTimeout: 3000 },
    }),
  );
  return async () => {
    const out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    return materialFrom(out.SecretString);
  };
}

export function materialFrom(text: string | undefined): ClientTlsMaterial {
  let value: unknown;
  try {
    value = JSON.parse(text ?? '');
  } catch {
    throw new ConfigError('the endpoint TLS secret is not a JSON object');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError('the endpoint TLS secret is not a JSON object');
  }
  const record = value as Record<string, unknown>;
  const material: Record<string, string> = {};
  for (const name of ['certificate', 'privateKey', 'caCertificates'] as const) {
    const member = record[name];
    if (member === undefined || member === '') continue;
    if (typeof member !== 'string')
      throw new ConfigError(`the endpoint TLS secret's ${name} is not a string`);
    material[name] = member;
  }
  return material;
}
