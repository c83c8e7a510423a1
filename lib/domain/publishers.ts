import { randomUUID } from 'node:crypto';
import { BadRequestError, NotFoundError } from '../errors';
import { validateEndpointUri } from './endpoint-uri';
import { type NotificationEvent, validateEvent } from './event';
import { isServiceId } from './ids';
import type { NotificationStore, Publisher } from './model';
import type { DeliveryPort } from './ports';
import { normaliseResourceAddress } from './resource-address';

export type RegisterPublisherResult =
  | { readonly kind: 'created'; readonly publisher: Publisher }
  | { readonly kind: 'exists'; readonly existingId: string };

export type PublishResult =
  | { readonly kind: 'accepted'; readonly event: NotificationEvent }
  | { readonly kind: 'ignored'; readonly reason: 'duplicate' | 'stale'; readonly event: NotificationEvent };

/** Publishers remembered per process; a node agent publishes with the same id again and again. */
const ADDRESS_CACHE_SIZE = 10_000;

export class Publishers {
  /**
   * Publisher id → address. A publisher's address never changes, and a deleted publisher is
   * caught by the condition of the accept transaction, so a warm publish needs no read.
   */
  private readonly addresses = new Map<string, string>();

  constructor(
    private readonly store: NotificationStore,
    private readonly delivery: DeliveryPort,
    private readonly dedupTtlSeconds: number,
  ) {}

  async register(body: unknown): Promise<RegisterPublisherResult> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new BadRequestError(
        'The request body must be a JSON object with ResourceAddress and, optionally, EndpointUri',
      );
    }
    const input = body as Record<string, unknown>;
    const resourceAddress = normaliseResourceAddress(input.ResourceAddress);
    if (input.EndpointUri !== undefined) validateEndpointUri(input.EndpointUri);
    const publisher: Publisher = {
      id: randomUUID(),
      resourceAddress,
      endpointUri: input.EndpointUri as string | undefined,
      createdAt: new Date().toISOString(),
    };
    const outcome = await this.store.createPublisher(publisher);
    return outcome.created
      ? { kind: 'created', publisher }
      : { kind: 'exists', existingId: outcome.existingId };
  }

  async get(id: string): Promise<Publisher> {
    if (!isServiceId(id)) throw notFound(id);
    const publisher = await this.store.getPublisher(id);
    if (!publisher) throw notFound(id);
    return publisher;
  }

  async list(): Promise<Publisher[]> {
    return this.store.listPublishers();
  }

  async delete(id: string): Promise<void> {
    if (!isServiceId(id)) throw notFound(id);
    if (!(await this.store.deletePublisher(id))) throw notFound(id);
  }

  /** Contract 5: a new event becomes the current state and goes to delivery; a repeat or an older one does not. */
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
    const { resourceAddress } = await this.get(publisherId);
    if (this.addresses.size >= ADDRESS_CACHE_SIZE) {
      const oldest = this.addresses.keys().next().value;
      if (oldest !== undefined) this.addresses.delete(oldest);
    }
    this.addresses.set(publisherId, resourceAddress);
    return resourceAddress;
  }

  /** Contract 4, CurrentState: the latest event of the publisher at exactly this address. */
  async currentState(rawAddress: string): Promise<NotificationEvent> {
    const address = normaliseResourceAddress(rawAddress);
    const state = await this.store.getState(address);
    if (!state) throw new NotFoundError(`No publisher is registered at ${address}`);
    if (!state.event) throw new NotFoundError(`The publisher at ${address} has not published any event yet`);
    return state.event;
  }
}

function notFound(id: string): NotFoundError {
  return new NotFoundError(`Publisher ${id.length > 80 ? `${id.slice(0, 77)}...` : id} does not exist`);
}
