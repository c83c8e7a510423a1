import { createHash, createHmac, type KeyObject, sign as signAsymmetric } from 'node:crypto';
import type { NotificationEvent } from '../domain/event';
import { SECRET_PREFIX } from '../domain/signing-secret';

/**
 * The `webhook-id` of one event for one recipient: derived, not stored, so every retry of the
 * same notification carries the same id and consumers can deduplicate on it.
 */
export function webhookId(recipient: string, publisherId: string, event: NotificationEvent): string {
  const digest = createHash('sha256').update(`${recipient}\n${publisherId}\n${event.source}\n${event.id}`);
  return `msg_${digest.digest('base64url').slice(0, 32)}`;
}

/**
 * Standard Webhooks headers for one attempt: `webhook-signature` holds one `v1,<base64 HMAC-SHA256
 * of "{id}.{timestamp}.{body}">` per secret in force (two during a rotation's grace period) and,
 * with the service's ed25519 key, one `v1a,<base64 ed25519 signature>` of the same content, all
 * space-separated. The body must be the exact bytes sent.
 */
export function webhookHeaders(
  id: string,
  body: string,
  secrets: readonly string[],
  now = Date.now(),
  signingKey?: KeyObject,
): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  const headers: Record<string, string> = { 'webhook-id': id, 'webhook-timestamp': timestamp };
  const content = `${id}.${timestamp}.${body}`;
  const signatures = secrets.map((secret) => `v1,${sign(secret, content)}`);
  if (signingKey)
    signatures.push(`v1a,${signAsymmetric(null, Buffer.from(content), signingKey).toString('base64')}`);
  if (signatures.length > 0) headers['webhook-signature'] = signatures.join(' ');
  return headers;
}

function sign(secret: string, content: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return createHmac('sha256', key).update(content).digest('base64');
}
