import { NotFoundError } from '../errors';
import { type NotificationEvent, validateEvent } from './event';
import { isServiceId } from './ids';
import type { PublisherStore } from './model';
import type { DeliveryPort } from './ports';

export type PublishResult =
  | { readonly kind: 'accepted'; readonly event: NotificationEvent }
  | { readonly kind: 'ignored'; readonly reason: 'duplicate' | 'stale'; readonly event: NotificationEvent };

/** Publishers remembered per process; a node agent publishes with the same id again and again. */
const ADDRESS_CACHE_SIZE = 10_000;

/** Contract 5, POST /publishers/{id}/events. */
export class Publish {
  /**
   * Publisher id → address. A publisher's address never changes, and a deleted publisher is
   * caught by the condition of the accept transaction, so a warm publish needs no read.
   */
  private readonly addresses = new Map<string, string>();

  constructor(
    private readonly store: PublisherStore,
    private readonly delivery: DeliveryPort,
    private readonly dedupTtlSeconds: number,
  ) {}

  /** A new event becomes the current state and goes to delivery; a repeat or an older one does not. */
  async publish(publisherId: string, body: unknown): Promise<PublishResult> {
    const resourceAddress = await this.addressOf(publisherId);
    const { event, timeKey } = validateEvent(body, resourceAddress);
    const acceptedAt = new Date();
    const outcome = await this.store.acceptEvent({
      publisherId,
      resourceAddress,
      event,
      timeKey,
      acceptedAt: acceptedAt.toISOString(),
      dedupExpiresAt: Math.floor(acceptedAt.getTime() / 1000) + this.dedupTtlSeconds,
    });
    if (outcome === 'unknown-publisher') {
      this.addresses.delete(publisherId);
      throw notFound(publisherId);
    }
    if (outcome !== 'accepted') return { kind: 'ignored', reason: outcome, event };
    try {
      await this.delivery.eventAccepted({
        publisherId,
        resourceAddress,
        event,
        acceptedAt: acceptedAt.toISOString(),
      });
    } catch (error) {
      // The event is the current state already, but nobody will be notified of it. Forgetting its
      // (source, id) lets the producer's retry of this request be accepted and delivered; the error
      // (a 503 with Retry-After when the queue is unavailable) tells it to retry.
      await this.store.forgetAcceptedEvent(publisherId, event.source, event.id);
      throw error;
    }
    return { kind: 'accepted', event };
  }

  private async addressOf(publisherId: string): Promise<string> {
    const known = this.addresses.get(publisherId);
    if (known) return known;
    const publisher = isServiceId(publisherId) ? await this.store.getPublisher(publisherId) : undefined;
    if (!publisher) throw notFound(publisherId);
    const { resourceAddress } = publisher;
    if (this.addresses.size >= ADDRESS_CACHE_SIZE) {
      const oldest = this.addresses.keys().next().value;
      if (oldest !== undefined) this.addresses.delete(oldest);
    }
    this.addresses.set(publisherId, resourceAddress);
    return resourceAddress;
  }
}

function notFound(id: string): NotFoundError {
  return new NotFoundError(`Publisher ${id.length > 80 ? `${id.slice(0, 77)}...` : id} does not exist`);
}
