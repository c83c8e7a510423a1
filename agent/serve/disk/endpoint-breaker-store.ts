import type { Subscription } from '../../../lib/domain/model';
import type { EndpointBreakerStore } from '../../../lib/domain/ports';
import type { Journal } from './journal';
import { diskKeys } from './keys';

/** The subscription's item, as subscription-store.ts keeps it: the breaker's members are its subscription's. */
interface ItemWithSubscription {
  readonly subscription: Subscription;
}

/**
 * The breaker's `endpointFailingSince` and `endpointSuspendedAt` on the subscription's item, as
 * DynamoEndpointBreakerStore keeps them on the region's: a read of the subscription carries them.
 * Not synced on their own (a power cut may forget a failure's start, which only delays a suspension),
 * but a suspension and a resumption are, as what the consumer was told.
 */
export class DiskEndpointBreakerStore implements EndpointBreakerStore {
  constructor(private readonly journal: Journal) {}

  async recordEndpointFailure(id: string, at: number): Promise<void> {
    this.change(
      id,
      (s) => (s.endpointFailingSince === undefined ? { ...s, endpointFailingSince: at } : undefined),
      false,
    );
  }

  async clearEndpointFailure(id: string): Promise<void> {
    this.change(
      id,
      (s) => {
        if (s.endpointSuspendedAt !== undefined || s.endpointFailingSince === undefined) return undefined;
        const { endpointFailingSince: _cleared, ...rest } = s;
        return rest;
      },
      false,
    );
  }

  async suspendEndpoint(id: string, at: number): Promise<boolean> {
    return this.change(
      id,
      (s) => (s.endpointSuspendedAt === undefined ? { ...s, endpointSuspendedAt: at } : undefined),
      true,
    );
  }

  async resumeEndpoint(id: string): Promise<void> {
    this.change(
      id,
      (s) => {
        const { endpointSuspendedAt: _suspended, endpointFailingSince: _failing, ...rest } = s;
        return rest;
      },
      true,
    );
  }

  /** Writes the subscription `change` makes, if it exists and `change` makes one; true when written. */
  private change(
    id: string,
    change: (s: Subscription) => Subscription | undefined,
    durable: boolean,
  ): boolean {
    const key = diskKeys.subscription(id);
    const item = this.journal.get<ItemWithSubscription>(key);
    if (!item) return false;
    const changed = change(item.subscription);
    if (!changed) return false;
    this.journal.commit([{ key, value: { ...item, subscription: changed } }], { durable });
    return true;
  }
}
