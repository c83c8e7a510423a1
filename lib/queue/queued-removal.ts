import type { PagePosition, RetiredSubscriptions } from '../domain/model';
import type { RetiredSubscriptionRemoval } from '../domain/ports';
import type { QueuePort } from './queue-port';
import { MalformedMessageError } from './unreadable-message';

/**
 * On the clean-up queue: one job of delete-all, or the rest of one that ran out of time. Its shape
 * lives here, beside the one port that writes it, since only the clean-up function reads it; the
 * fan-out and delivery messages live in lib/delivery/messages.ts, which fan-out and deliver write
 * as well as read.
 */
interface RemovalMessage extends RetiredSubscriptions {
  readonly kind: 'remove-retired';
}

export class QueuedRemoval implements RetiredSubscriptionRemoval {
  constructor(private readonly queue: QueuePort) {}

  async schedule(job: RetiredSubscriptions): Promise<void> {
    const message: RemovalMessage = { kind: 'remove-retired', ...job };
    await this.queue.send('cleanup', [{ body: JSON.stringify(message) }]);
  }
}

export function parseRemovalMessage(body: string): RetiredSubscriptions {
  let input: Partial<RemovalMessage>;
  try {
    input = JSON.parse(body) as Partial<RemovalMessage>;
  } catch {
    throw new MalformedMessageError('the body is not JSON');
  }
  const { kind, owner, fromGeneration, toGeneration, after } = input;
  if (
    kind !== 'remove-retired' ||
    typeof owner !== 'string' ||
    !Number.isInteger(fromGeneration) ||
    !Number.isInteger(toGeneration) ||
    (after !== undefined && (typeof after !== 'object' || after === null))
  ) {
    throw new MalformedMessageError('not a remove-retired message');
  }
  return {
    owner,
    fromGeneration: fromGeneration as number,
    toGeneration: toGeneration as number,
    after: after as PagePosition | undefined,
  };
}
