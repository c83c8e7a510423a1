import { BadRequestError, clip, NotFoundError } from '../errors';
import { validateEndpointUri } from './endpoint-uri';
import type { NotificationEvent } from './event';
import { isServiceId, publisherIdFor } from './ids';
import { requireExactMemberNames } from './member-names';
import type { Page, PageRequest, Publisher } from './model';
import type { NodeScope } from './node-scope';
import type { PublisherStore } from './ports';
import { normaliseResourceAddress } from './resource-address';

export type RegisterPublisherResult =
  | { readonly kind: 'created'; readonly publisher: Publisher }
  | { readonly kind: 'exists'; readonly existingId: string };

/** Registering, reading and removing publishers; publishing events is `Publish` (lib/domain/publish.ts). */
export class Publishers {
  constructor(
    private readonly store: PublisherStore,
    /** On a node host, the node it serves; the region serves every address. */
    private readonly scope?: NodeScope,
  ) {}

  async register(body: unknown): Promise<RegisterPublisherResult> {
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
    const publisher: Publisher = {
      id: publisherIdFor(resourceAddress),
      resourceAddress,
      endpointUri: input.EndpointUri as string | undefined,
      createdAt: new Date().toISOString(),
    };
    return (await this.store.createPublisher(publisher))
      ? { kind: 'created', publisher }
      : { kind: 'exists', existingId: publisher.id };
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

  async delete(id: string): Promise<void> {
    if (!isServiceId(id)) throw publisherNotFound(id);
    if (!(await this.store.deletePublisher(id))) throw publisherNotFound(id);
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
