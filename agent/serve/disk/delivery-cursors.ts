import {
  type DeliveryCursor,
  deliveredCursor,
  deliveryStatusSince,
  eventKey,
  leasedCursor,
  leaseRefusal,
  movesForward,
  releasedCursor,
  supersedes,
  withoutLease,
} from '../../../lib/domain/delivery-cursor';
import { parseTime } from '../../../lib/domain/event';
import type {
  AttemptFailure,
  CompletedAttempt,
  DeadLetterRecord,
  DeliveryAttempt,
  DeliveryCursorKey,
  DeliveryStatus,
  LeaseOutcome,
  Subscription,
} from '../../../lib/domain/model';
import type { DeliveryCursorStore } from '../../../lib/domain/ports';
import type { Journal } from './journal';
import { diskKeys, ExpirySweep, type Page, type PageRequest, pageOf } from './keys';

/**
 * The ordering cursors of delivery on the node's disk, one item per (subscription, address), by
 * the rules of lib/domain/delivery-cursor.ts. A batch of attempts is judged one after another
 * against the cursors as the earlier ones left them, then written in one commit (one fdatasync);
 * each attempt still gets its own outcome. Cursors expire (`expiresAt`), as in the region.
 */
export class DiskDeliveryCursors implements DeliveryCursorStore {
  private readonly expired: ExpirySweep;

  constructor(private readonly journal: Journal) {
    this.expired = new ExpirySweep(journal, diskKeys.cursors);
  }

  async acquireDeliveryLeases(
    attempts: readonly DeliveryAttempt[],
  ): Promise<PromiseSettledResult<LeaseOutcome>[]> {
    this.expired.sweepIfDue(Date.now());
    // Synced: the lease moves the cursor (it commits ahead, and a 2xx writes nothing); a cursor a
    // power cut moved back could let an older event's retry follow a newer one.
    return this.update({ durable: true }, attempts, (a, cursor) => {
      const refused = leaseRefusal(cursor ?? {}, a);
      if (refused) return [refused];
      return [{ kind: 'acquired' }, leasedCursor(cursor, a)];
    });
  }

  /**
   * The lease's holder records its event and frees the lease. An attempt whose lease ran out
   * meanwhile still records it, but only forward, and leaves another attempt's lease alone.
   */
  async completeDeliveries(attempts: readonly CompletedAttempt[]): Promise<PromiseSettledResult<void>[]> {
    return this.update({ durable: true }, attempts, (a, cursor) => {
      if (cursor?.leaseOwner === a.leaseOwner)
        return [undefined, { ...withoutLease(cursor), ...deliveredCursor(a) }];
      return movesForward(cursor, a.timeKey)
        ? [undefined, { ...cursor, ...deliveredCursor(a) }]
        : [undefined];
    });
  }

  /**
   * Only by the lease's holder: puts back what the lease replaced; after a failed attempt, the same
   * write keeps the failure. Not synced: a power cut that undoes it leaves the cursor at the failed
   * attempt's event, whose own retry takes the lease again (never older after newer; an event
   * between the two is dropped as superseded).
   */
  async releaseDeliveryLease(a: DeliveryAttempt, failure?: AttemptFailure): Promise<void> {
    const [result] = await this.update({ durable: false }, [a], (attempt, cursor) => {
      if (cursor?.leaseOwner !== attempt.leaseOwner) return [undefined];
      return [undefined, releasedCursor(cursor, failure)];
    });
    if (result?.status === 'rejected') throw result.reason;
  }

  /** By address; a page may hold fewer than its limit, as in the region (cursors of an earlier incarnation are dropped). */
  async listDeliveries(subscription: Subscription, request: PageRequest): Promise<Page<DeliveryStatus>> {
    const prefix = diskKeys.cursorsOf(subscription.id);
    const cursors = this.journal
      .scan<DeliveryCursor>(prefix)
      .map(([key, cursor]): [string, [string, DeliveryCursor]] => {
        const address = key.slice(prefix.length);
        return [address, [address, cursor]];
      });
    const page = pageOf(cursors, request);
    const since = Date.parse(subscription.createdAt);
    const items = page.items.flatMap(
      ([address, cursor]) => deliveryStatusSince(address, cursor, since) ?? [],
    );
    return { items, next: page.next };
  }

  async deliveredSince(
    subscriptionId: string,
    letters: readonly DeadLetterRecord[],
  ): Promise<Set<DeadLetterRecord>> {
    return new Set(
      letters.filter((letter) => {
        const cursor = this.journal.get<DeliveryCursor>(
          diskKeys.cursor(subscriptionId, letter.resourceAddress),
        );
        return (
          cursor !== undefined && supersedes(cursor, parseTime(letter.event.time), eventKey(letter.event))
        );
      }),
    );
  }

  /**
   * Judges each attempt against its cursor as the attempts before it left it (`step` gives the
   * outcome and, to write, the new cursor), then commits every new cursor at once. A failed
   * commit fails every attempt.
   */
  private update<A extends DeliveryAttempt, R>(
    options: { durable: boolean },
    attempts: readonly A[],
    step: (a: A, cursor: DeliveryCursor | undefined) => [R] | [R, DeliveryCursor],
  ): PromiseSettledResult<R>[] {
    const written = new Map<string, DeliveryCursor>();
    const outcomes = attempts.map((a) => {
      const key = keyOf(a);
      const [outcome, cursor] = step(a, written.get(key) ?? this.journal.get<DeliveryCursor>(key));
      if (cursor) written.set(key, cursor);
      return outcome;
    });
    try {
      this.journal.commit(
        [...written].map(([key, value]) => ({ key, value })),
        options,
      );
    } catch (reason) {
      return attempts.map(() => ({ status: 'rejected', reason }));
    }
    return outcomes.map((value) => ({ status: 'fulfilled', value }));
  }
}

function keyOf(pair: DeliveryCursorKey): string {
  return diskKeys.cursor(pair.subscriptionId, pair.resourceAddress);
}
