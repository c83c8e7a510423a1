import { BadRequestError, clip, NotFoundError } from '../errors';
import { validateEndpointUri } from './endpoint-uri';
import type { NotificationEvent } from './event';
import { isServiceId, publisherIdFor } from './ids';
import { requireExactMemberNames } from './member-names';
import type { Page, PageRequest, Publisher } from './model';
import type { NodeScope } from './node-scope';
import type { PublisherStore } from './ports';
import { notTheOwner, type Producer, type ProducerAccess, UNNAMED } from './producers';
import { type Quota, quotaReached } from './quotas';
import { normaliseResourceAddress } from './resource-address';

export type RegisterPublisherResult =
  | { readonly kind: 'created'; readonly publisher: Publisher }
  | { readonly kind: 'exists'; readonly existingId: string };

/** Registering, reading and removing publishers; publishing events is `Publish` (lib/domain/publish.ts). */
export class Publishers {
  constructor(
    private readonly store: PublisherStore,
    /** The operator's grants; without it (a node serving its own API) every producer may register. */
    private readonly access?: ProducerAccess,
    /** At most this many publishers per producer principal; none: no quota. */
    private readonly quota?: Quota,
    /** On a node host, the node it serves; the region serves every address. */
    private readonly scope?: NodeScope,
  ) {}

  /**
   * Registers a publisher owned by `producer`, if it holds a grant for the address (403 naming
   * the grant otherwise); over another principal's publisher: 403, over its own: exists (409).
   */
  async register(body: unknown, producer: Producer = UNNAMED): Promise<RegisterPublisherResult> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new BadRequestError(
        'The request body must be a JSON object with ResourceAddress and, optionally, EndpointUri',
      );
    }
    const input = body as Record<string, unknown>;
    requireExactMemberNames(input, ['ResourceAddress', 'EndpointUri']);
    const resourceAddress = normaliseResourceAddress(input.ResourceAddress);
    this.scope?.assertPublisherAddress(resourceAddress);
    if (input.EndpointUri !== undefined) validateEndpointUri(input.EndpointUri);
    await this.access?.assertGranted(producer, resourceAddress);
    const publisher: Publisher = {
      id: publisherIdFor(resourceAddress),
      resourceAddress,
      endpointUri: input.EndpointUri as string | undefined,
      createdAt: new Date().toISOString(),
      owner: producer.principal,
    };
    // The unnamed producer of the local stage is not counted (it is every tool's, and one item
    // counting every registration would be a hot key); every other principal is.
    const quota = producer.grantedAll ? undefined : this.quota;
    const outcome = await this.store.createPublisher(publisher, quota?.value);
    if (outcome === 'created') return { kind: 'created', publisher };
    if (outcome === 'over-quota' && quota) {
      throw quotaReached(`Producer ${producer.principal} has registered ${quota.value} publishers`, quota, {
        rule: 'quota',
        principal: producer.principal,
        address: resourceAddress,
      });
    }
    // Rare: read who has it, so that another principal learns the rule rather than where it is.
    const existing = await this.store.getPublisher(publisher.id);
    if (existing?.owner !== undefined && existing.owner !== producer.principal) {
      throw notTheOwner(producer, resourceAddress, 'register over it');
    }
    return { kind: 'exists', existingId: publisher.id };
  }

  async get(id: string): Promise<Publisher> {
    if (!isServiceId(id)) throw publisherNotFound(id);
    const publisher = await this.store.getPublisher(id);
    if (!publisher) throw publisherNotFound(id);
    return publisher;
  }

  /** A page of the publishers, or of those at or under the address; 404 when the first page is empty. */
  async list(resourceAddress: string | undefined, page: PageRequest): Promise<Page<Publisher>> {
    const address = resourceAddress === undefined ? undefined : normaliseResourceAddress(resourceAddress);
    const found = await this.store.listPublishers(address, page);
    if (found.items.length === 0 && !page.after) {
      throw new NotFoundError(
        address === undefined
          ? 'No publisher is registered'
          : `No publisher is registered at or under ResourceAddress ${address}`,
      );
    }
    return found;
  }

  /** Deletes the publisher if `producer` registered it (403 if another principal did). */
  async delete(id: string, producer: Producer = UNNAMED): Promise<void> {
    if (!isServiceId(id)) throw publisherNotFound(id);
    const outcome = await this.store.deletePublisher(id, producer.principal, !producer.grantedAll);
    if (outcome === 'absent') throw publisherNotFound(id);
    if (outcome === 'not-owner') throw notTheOwner(producer, undefined, 'delete it');
  }

  /** Contract 4, CurrentState: the latest event of the publisher at exactly this address. */
  async currentState(rawAddress: string): Promise<NotificationEvent> {
    const address = normaliseResourceAddress(rawAddress);
    this.scope?.assertCurrentStateAddress(address);
    const state = await this.store.getState(publisherIdFor(address));
    if (!state) throw new NotFoundError(`No publisher is registered at ${address}`);
    if (!state.event) throw new NotFoundError(`The publisher at ${address} has not published any event yet`);
    return state.event;
  }
}

export function publisherNotFound(id: string): NotFoundError {
  return new NotFoundError(`Publisher ${clip(id)} does not exist`);
}
