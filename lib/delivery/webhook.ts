import { createHash, createHmac } from 'node:crypto';
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
 * Standard Webhooks v1 headers for one attempt: `webhook-signature` holds one `v1,<base64 HMAC-SHA256
 * of "{id}.{timestamp}.{body}">` per secret in force, space-separated (two during a rotation's grace
 * period). The body must be the exact bytes sent.
 */
export function webhookHeaders(
  id: string,
  body: string,
  secrets: readonly string[],
  now = Date.now(),
): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  const headers: Record<string, string> = { 'webhook-id': id, 'webhook-timestamp': timestamp };
  if (secrets.length > 0) {
    headers['webhook-signature'] = secrets
      .map((secret) => `v1,${sign(secret, `${id}.${timestamp}.${body}`)}`)
      .join(' ');
  }
  return headers;
}

function sign(secret: string, content: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return createHmac('sha256', key).update(content).digest('base64');
}
