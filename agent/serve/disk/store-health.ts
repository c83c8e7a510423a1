import type { StoreHealth } from '../../../lib/domain/ports';
import type { Journal } from './journal';

/** GET /health on the node: the journal is open and its log takes a sync. */
export class DiskStoreHealth implements StoreHealth {
  constructor(private readonly journal: Journal) {}

  async ping(): Promise<void> {
    this.journal.assertWritable();
  }
}
