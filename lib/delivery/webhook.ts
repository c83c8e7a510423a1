import { createHash } from 'node:crypto';
import type { NotificationEvent } from '../domain/event';

/**
 * The `webhook-id` of one event for one recipient: derived, not stored, so every retry of the
 * same notification carries the same id and consumers can deduplicate on it.
 */
export function webhookId(recipient: string, publisherId: string, event: NotificationEvent): string {
  const digest = createHash('sha256').update(`${recipient}\n${publisherId}\n${event.source}\n${event.id}`);
  return `msg_${digest.digest('base64url').slice(0, 32)}`;
}

export function webhookHeaders(id: string, now = Date.now()): Record<string, string> {
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now / 1000)) };
}
