import { judgeAcceptance } from '../../../lib/domain/acceptance';
import type { NotificationEvent } from '../../../lib/domain/event';
import type {
  AcceptOutcome,
  EventToAccept,
  Page,
  PageRequest,
  Publisher,
  PublisherState,
} from '../../../lib/domain/model';
import type { PublisherStore } from '../../../lib/domain/ports';
import { isAtOrUnder } from '../../../lib/domain/resource-address';
import type { Journal } from './journal';
import { bySortKey, diskKeys, ExpirySweep, pageOf } from './keys';

/** A publisher as the journal keeps it: its record and its current state in one item. */
interface PublisherItem {
  readonly id: string;
  readonly resourceAddress: string;
  readonly endpointUri?: string;
  readonly createdAt: string;
  readonly event?: NotificationEvent;
  readonly timeKey?: string;
  readonly acceptedAt?: string;
}

/** The publishers on the node's disk, as DynamoPublisherStore keeps them in the region. */
export class DiskPublisherStore implements PublisherStore {
  /** Accepted (source, id)s are forgotten once their de-duplication window is over. */
  private readonly acceptedEvents: ExpirySweep;

  constructor(private readonly journal: Journal) {
    this.acceptedEvents = new ExpirySweep(journal, diskKeys.acceptedEvents);
  }

  async createPublisher(p: Publisher): Promise<boolean> {
    const key = diskKeys.publisher(p.id);
    // Ids follow from addresses: one item per id is the address's uniqueness.
    if (this.journal.get(key) !== undefined) return false;
    const item: PublisherItem = {
      id: p.id,
      resourceAddress: p.resourceAddress,
      ...(p.endpointUri === undefined ? {} : { endpointUri: p.endpointUri }),
      createdAt: p.createdAt,
    };
    this.journal.commit([{ key, value: item }]);
    return true;
  }

  async getPublisher(id: string): Promise<Publisher | undefined> {
    const item = this.journal.get<PublisherItem>(diskKeys.publisher(id));
    return item && toPublisher(item);
  }

  /** Unfiltered: oldest first. Under an address: in the order of the region's publisher tree. */
  async listPublishers(address: string | undefined, request: PageRequest): Promise<Page<Publisher>> {
    const items =
      address === undefined
        ? bySortKey(publisherItems(this.journal).map((p) => [`${p.createdAt}#${p.id}`, p]))
        : publishersAtOrUnder(this.journal, address);
    const page = pageOf(items, request);
    return { items: page.items.map(toPublisher), next: page.next };
  }

  async deletePublisher(id: string): Promise<boolean> {
    const key = diskKeys.publisher(id);
    if (this.journal.get(key) === undefined) return false;
    this.journal.commit([{ key }]);
    return true;
  }

  async getState(publisherId: string): Promise<PublisherState | undefined> {
    return publisherState(this.journal, publisherId);
  }

  /** The region's transaction as one synchronous check and one commit: the dedup record and the state together. */
  async acceptEvent(e: EventToAccept): Promise<AcceptOutcome> {
    const now = Date.now();
    this.acceptedEvents.sweepIfDue(now);
    const key = diskKeys.publisher(e.publisherId);
    const item = this.journal.get<PublisherItem>(key);
    const acceptedKey = diskKeys.acceptedEvent(e.publisherId, e.event.source, e.event.id);
    const accepted = this.journal.get<{ readonly expiresAt: number }>(acceptedKey);
    const repeated = accepted !== undefined && accepted.expiresAt >= now / 1000;
    const outcome = judgeAcceptance(e, item, repeated);
    if (outcome.kind !== 'accepted' || !item) return outcome;
    const state: PublisherItem = { ...item, event: e.event, timeKey: e.timeKey, acceptedAt: e.acceptedAt };
    this.journal.commit([
      { key: acceptedKey, value: { expiresAt: e.dedupExpiresAt } },
      { key, value: state },
    ]);
    return outcome;
  }

  async forgetAcceptedEvent(publisherId: string, source: string, id: string): Promise<void> {
    this.journal.commit([{ key: diskKeys.acceptedEvent(publisherId, source, id) }]);
  }
}

function publisherItems(journal: Journal): PublisherItem[] {
  return journal.scan<PublisherItem>(diskKeys.publishers).map(([, item]) => item);
}

/**
 * The publishers at or under `address` (whole segments), ordered as the region's publisher tree
 * orders them: by address and a `/`, so that `/a/b/…` sorts apart from `/a/b-c`.
 */
function publishersAtOrUnder(journal: Journal, address: string): Array<[string, PublisherItem]> {
  return bySortKey(
    publisherItems(journal)
      .filter((p) => isAtOrUnder(p.resourceAddress, address))
      .map((p) => [`${p.resourceAddress}/`, p]),
  );
}

/** The current state of the publisher with this id, if there is one. */
export function publisherState(journal: Journal, publisherId: string): PublisherState | undefined {
  const item = journal.get<PublisherItem>(diskKeys.publisher(publisherId));
  return item && toState(item);
}

/** The current states of the publishers at or under `address`. */
export function statesAtOrUnder(journal: Journal, address: string): PublisherState[] {
  return publishersAtOrUnder(journal, address).map(([, item]) => toState(item));
}

function toPublisher(item: PublisherItem): Publisher {
  return {
    id: item.id,
    resourceAddress: item.resourceAddress,
    endpointUri: item.endpointUri,
    createdAt: item.createdAt,
  };
}

function toState(item: PublisherItem): PublisherState {
  return {
    publisherId: item.id,
    resourceAddress: item.resourceAddress,
    event: item.event,
    timeKey: item.timeKey,
    acceptedAt: item.acceptedAt,
  };
}
