import { logger } from '../logger';
import type { QueueName, QueuePort } from './queue-port';

/**
 * A message no attempt can ever process: not JSON, or not the shape its queue carries (another
 * producer's, an older or a damaged one). Every queue's parser throws it (lib/delivery/messages.ts,
 * queued-removal.ts), and nothing else does.
 */
export class MalformedMessageError extends Error {}

/** On the dead-letter queue: a message a queue's function could not read, whole, and why. */
export interface UnreadableLetter {
  readonly kind: 'dead-letter';
  readonly reason: string;
  /** The queue it was received from. */
  readonly queue: QueueName;
  readonly body: string;
}

/**
 * The one policy of the three queue functions (fan-out, deliver, clean-up) for a message that can
 * never succeed: it goes to the dead-letter queue on its first receive, whole and with the reason
 * (docs/delivery.md: "Poison messages"), and is deleted from its queue, rather than retried until
 * its queue's maxReceiveCount (up to 18 receives, most of an hour on the fan-out queue) for SQS to
 * move it there with no reason. Every queue's poison goes to the one dead-letter queue, whose alarm
 * fires on its first message; the clean-up queue's own dead-letter queue keeps the jobs that failed
 * every time (those can be redriven: an unreadable one cannot).
 *
 * Answers what `parse` reads from `body`, or undefined when the message was dead-lettered.
 * Throws when the dead-letter queue cannot take it: the caller then fails the record like any
 * passing fault, and it comes back to be tried again; nothing is dropped.
 */
export async function readOrDeadLetter<T>(
  queue: QueuePort,
  from: QueueName,
  body: string,
  parse: (body: string) => T,
): Promise<T | undefined> {
  try {
    return parse(body);
  } catch (error) {
    if (!(error instanceof MalformedMessageError)) throw error;
    const letter: UnreadableLetter = {
      kind: 'dead-letter',
      reason: `unreadable message on the ${from} queue: ${error.message}`,
      queue: from,
      body,
    };
    await queue.send('dead-letter', [{ body: JSON.stringify(letter) }]);
    logger.warn('unreadable message dead-lettered', { queue: from, reason: letter.reason });
    return undefined;
  }
}
