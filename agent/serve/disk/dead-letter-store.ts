import { deadLetterExpiresAt, deadLetterOrder } from '../../../lib/domain/dead-letter';
import type { DeadLetterRecord, Page, PageRequest, Subscription } from '../../../lib/domain/model';
import type { DeadLetterStore } from '../../../lib/domain/ports';
import type { Journal } from './journal';
import { diskKeys, ExpirySweep, pageOf } from './keys';

interface DeadLetterItem {
  readonly letter: DeadLetterRecord;
  /** Unix seconds: 14 days after it was dead-lettered, as the region's TTL. */
  readonly expiresAt: number;
}

/**
 * The dead letters on the node's disk, kept under their subscription's incarnation (its id and
 * creation time), oldest event first, for 14 days. A subscription's delete removes them
 * (DiskSubscriptionStore), in the same commit.
 */
export class DiskDeadLetterStore implements DeadLetterStore {
  private readonly expired: ExpirySweep;

  constructor(private readonly journal: Journal) {
    this.expired = new ExpirySweep(journal, diskKeys.deadLetters);
  }

  /** The same notification dead-lettered again replaces it. */
  async recordDeadLetter(letter: DeadLetterRecord): Promise<void> {
    this.expired.sweepIfDue(Date.now());
    const item: DeadLetterItem = { letter, expiresAt: deadLetterExpiresAt(letter) };
    this.journal.commit([{ key: deadLetterKey(letter), value: item }]);
  }

  async listDeadLetters(subscription: Subscription, request: PageRequest): Promise<Page<DeadLetterRecord>> {
    const letters = this.journal.scan<DeadLetterItem>(
      diskKeys.deadLettersOf(subscription.id, subscription.createdAt),
    );
    const page = pageOf(letters, request);
    return { items: page.items.map((item) => item.letter), next: page.next };
  }

  async removeDeadLetters(letters: readonly DeadLetterRecord[]): Promise<void> {
    this.journal.commit(letters.map((letter) => ({ key: deadLetterKey(letter) })));
  }
}

function deadLetterKey(letter: DeadLetterRecord): string {
  return `${diskKeys.deadLettersOf(letter.subscriptionId, letter.subscriptionCreatedAt)}${deadLetterOrder(letter)}`;
}
