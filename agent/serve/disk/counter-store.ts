import type { CounterStore, StoreHealth } from '../../../lib/domain/ports';
import type { Journal } from './journal';
import { diskKeys } from './keys';

/**
 * The exact counts, counted: every subscription on the node is live (delete-all removes at once),
 * and the node holds thousands at most, so a count is a scan and can never drift.
 */
export class DiskCounterStore implements CounterStore {
  constructor(private readonly journal: Journal) {}

  async counts(): Promise<{ subscriptions: number; publishers: number }> {
    return {
      subscriptions: this.journal.scan(diskKeys.subscriptions).length,
      publishers: this.journal.scan(diskKeys.publishers).length,
    };
  }
}

/** GET /health on the node: the journal is open and its log takes a sync. */
export class DiskStoreHealth implements StoreHealth {
  constructor(private readonly journal: Journal) {}

  async ping(): Promise<void> {
    this.journal.assertWritable();
  }
}
