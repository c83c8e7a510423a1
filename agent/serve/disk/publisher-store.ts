import { judgeAcceptance } from '../../../lib/domain/acceptance';
import { eventKey } from '../../../lib/domain/delivery-cursor';
import { rateStep } from '../../../lib/domain/event-rate';
import type {
  AcceptOutcome,
  CreatePublisherOutcome,
  DeletePublisherOutcome,
  EventToAccept,
  Publisher,
  PublisherState,
} from '../../../lib/domain/model';
import type { PublisherStore } from '../../../lib/domain/ports';
import { isAtOrUnder } from '../../../lib/domain/resource-address';
import type { Journal } from './journal';
import { bySortKey, deletesUnder, diskKeys, type Page, type PageRequest, pageOf } from './keys';

/**
 * A publisher as the journal keeps it: its record and its current state in one item (members that
 * are undefined are left out, as JSON leaves them).
 */
interface PublisherItem {
  readonly publisher: Publisher;
  readonly state: PublisherState;
  /** Counted against its owner's quota (created with one). */
  readonly counted?: boolean;
  /** Its event rate's next theoretical arrival (lib/domain/event-rate.ts). */
  readonly rateAt?: number;
  /** `eventKey` of the current state's event: a repeat of it is a duplicate (lib/domain/acceptance.ts). */
  readonly eventKey?: string;
}

/**
 * Where release 0.2.0 kept every accepted event's (source, id) for a day: the state's `eventKey`
 * recognises a repeat now, so these are deleted when the store opens.
 */
const RETIRED_ACCEPTED_EVENTS = 'event#';

const NO_EVENT_YET = { event: undefined, timeKey: undefined, acceptedAt: undefined } as const;

/** The publishers on the node's disk, as DynamoPublisherStore keeps them in the region. */
export class DiskPublisherStore implements PublisherStore {
  constructor(private readonly journal: Journal) {
    journal.commit(deletesUnder(journal, RETIRED_ACCEPTED_EVENTS));
  }

  async createPublisher(p: Publisher, quota?: number): Promise<CreatePublisherOutcome> {
    const key = diskKeys.publisher(p.id);
    // Ids follow from addresses: one item per id is the address's uniqueness.
    if (this.journal.get(key) !== undefined) return 'exists';
    const counted = quota !== undefined && p.owner !== undefined;
    if (counted && countedOf(this.journal, p.owner) >= quota) return 'over-quota';
    const state: PublisherState = { publisherId: p.id, resourceAddress: p.resourceAddress, ...NO_EVENT_YET };
    const item: PublisherItem = { publisher: p, state, ...(counted ? { counted } : {}) };
    this.journal.commit([{ key, value: item }]);
    return 'created';
  }

  async getPublisher(id: string): Promise<Publisher | undefined> {
    return this.journal.get<PublisherItem>(diskKeys.publisher(id))?.publisher;
  }

  /** Unfiltered: oldest first. Under an address: in the order of the region's publisher tree. */
  async listPublishers(address: string | undefined, request: PageRequest): Promise<Page<Publisher>> {
    const items =
      address === undefined
        ? bySortKey(publishers(this.journal).map((p) => [`${p.createdAt}#${p.id}`, p]))
        : publishersAtOrUnder(this.journal, address);
    return pageOf(items, request);
  }

  /** Refused when another principal owns it; one registered before owners were kept is anyone's. */
  async deletePublisher(id: string, owner: string): Promise<DeletePublisherOutcome> {
    const key = diskKeys.publisher(id);
    const item = this.journal.get<PublisherItem>(key);
    if (item === undefined) return 'absent';
    if (item.publisher.owner !== undefined && item.publisher.owner !== owner) return 'not-owner';
    this.journal.commit([{ key }]);
    return 'deleted';
  }

  async getState(publisherId: string): Promise<PublisherState | undefined> {
    return publisherState(this.journal, publisherId);
  }

  /** The region's conditional update as one synchronous check and one commit of the publisher's item. */
  async acceptEvent(e: EventToAccept): Promise<AcceptOutcome> {
    const key = diskKeys.publisher(e.publisherId);
    const item = this.journal.get<PublisherItem>(key);
    const outcome = judgeAcceptance(
      e,
      item && { ...item.state, owner: item.publisher.owner, rateAt: item.rateAt, eventKey: item.eventKey },
    );
    if (outcome.kind !== 'accepted' || !item) return outcome;
    const rate = e.rate && rateStep(item.rateAt, Date.parse(e.acceptedAt), e.rate);
    const state: PublisherState = {
      ...item.state,
      event: e.event,
      timeKey: e.timeKey,
      acceptedAt: e.acceptedAt,
    };
    // Not synced on its own: an accepted event is answered only after its fan-out message is sent
    // (lib/domain/publish.ts), and that send's sync takes this line to the disk with it; if the
    // send fails, the acceptance is forgotten. One fdatasync on the publish path instead of two.
    const value: PublisherItem = {
      ...item,
      state,
      eventKey: eventKey(e.event),
      ...(rate?.kind === 'conforms' ? { rateAt: rate.rateAt } : {}),
    };
    this.journal.commit([{ key, value }], { durable: false });
    return outcome;
  }

  /** As the region's: the state's event key goes if it is still this event's. */
  async forgetAcceptedEvent(publisherId: string, source: string, id: string): Promise<void> {
    const key = diskKeys.publisher(publisherId);
    const item = this.journal.get<PublisherItem>(key);
    if (item?.eventKey !== eventKey({ source, id })) return;
    const { eventKey: _forgotten, ...rest } = item;
    this.journal.commit([{ key, value: rest }]);
  }
}

function publishers(journal: Journal): Publisher[] {
  return journal.scan<PublisherItem>(diskKeys.publishers).map(([, item]) => item.publisher);
}

/**
 * The publishers at or under `address` (whole segments), ordered as the region's publisher tree
 * orders them: by address and a `/`, so that `/a/b/…` sorts apart from `/a/b-c`.
 */
function publishersAtOrUnder(journal: Journal, address: string): Array<[string, Publisher]> {
  return bySortKey(
    publishers(journal)
      .filter((p) => isAtOrUnder(p.resourceAddress, address))
      .map((p) => [`${p.resourceAddress}/`, p]),
  );
}

/** How many publishers `owner` registered with a quota. */
function countedOf(journal: Journal, owner: string): number {
  return journal
    .scan<PublisherItem>(diskKeys.publishers)
    .filter(([, item]) => item.counted && item.publisher.owner === owner).length;
}

/** The current state of the publisher with this id, if there is one. */
export function publisherState(journal: Journal, publisherId: string): PublisherState | undefined {
  return journal.get<PublisherItem>(diskKeys.publisher(publisherId))?.state;
}

/** The current states of the publishers at or under `address`. */
export function statesAtOrUnder(journal: Journal, address: string): PublisherState[] {
  return publishersAtOrUnder(journal, address).flatMap(([, p]) => publisherState(journal, p.id) ?? []);
}
