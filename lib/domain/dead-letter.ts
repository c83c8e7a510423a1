/** How dead letters are kept, whichever store keeps them (DeadLetterStore). */
import { createHash } from 'node:crypto';
import queues from '../queue/queues.json';
import { eventKey } from './delivery-cursor';
import { parseTime } from './event';
import type { DeadLetterRecord } from './model';

/** As long as the dead-letter queue keeps it (14 days, SQS's longest): the queue and the store keep a letter alike. */
const DEAD_LETTER_RETENTION_SECONDS = queues['dead-letter'].messageRetentionSeconds;

/**
 * Where the letter sorts among its subscription incarnation's letters: oldest event first, and a
 * digest of its address and event to tell apart letters of the same time. The same notification
 * dead-lettered again has the same key, and replaces the first.
 */
export function deadLetterOrder(letter: DeadLetterRecord): string {
  const digest = createHash('sha256')
    .update(`${letter.resourceAddress}\n${eventKey(letter.event)}`)
    .digest('base64url')
    .slice(0, 22);
  return `${parseTime(letter.event.time)}#${digest}`;
}

/** Unix seconds after which the letter is gone. */
export function deadLetterExpiresAt(letter: Pick<DeadLetterRecord, 'deadLetteredAt'>): number {
  return Math.ceil(Date.parse(letter.deadLetteredAt) / 1000) + DEAD_LETTER_RETENTION_SECONDS;
}
