import type {
  AcceptOutcome,
  CreatePublisherOutcome,
  DeletePublisherOutcome,
  EventToAccept,
  Page,
  PageRequest,
  Publisher,
  PublisherState,
} from '../domain/model';
import type { PublisherStore } from '../domain/ports';
import { ServiceUnavailableError } from '../errors';
import type { DynamoTable } from './dynamo-table';
import { publisherOfState, toPublisher, toState } from './items';
import { INDEX, INDEX_KEY, keys } from './keys';
import {
  acceptEventWrites,
  createPublisherWrites,
  deletePublisherWrites,
  type RateStep,
} from './transactions';

/** Publishers whose rate an instance remembers (a node agent publishes through the same ones). */
const RATE_CACHE_SIZE = 10_000;

export class DynamoPublisherStore implements PublisherStore {
  constructor(private readonly table: DynamoTable) {}

  /** The condition on the publisher's id is its address's uniqueness: the id follows from the address. */
  async createPublisher(p: Publisher, quota?: number): Promise<CreatePublisherOutcome> {
    const failure = await this.table.transact(createPublisherWrites(this.table.name, p, quota));
    if (!failure) return 'created';
    if (failure[0]?.Code === 'ConditionalCheckFailed') return 'exists';
    if (failure[3]?.Code === 'ConditionalCheckFailed') return 'over-quota';
    throw new Error(`publisher create was cancelled unexpectedly: ${JSON.stringify(failure)}`);
  }

  async getPublisher(id: string): Promise<Publisher | undefined> {
    const item = await this.table.get(keys.publisher(id));
    return item && toPublisher(item);
  }

  /** Unfiltered: oldest first. Under an address: one query of the publisher tree, in address order. */
  async listPublishers(address: string | undefined, request: PageRequest): Promise<Page<Publisher>> {
    if (address === undefined) {
      const page = await this.table.listPage(
        {
          IndexName: INDEX.byList,
          KeyConditionExpression: 'listPk = :pk',
          ExpressionAttributeValues: { ':pk': keys.publishers },
        },
        request,
        INDEX_KEY.byList,
      );
      return { items: page.items.map(toPublisher), next: page.next };
    }
    const page = await this.table.listPage(keys.publishersUnder(address), request, INDEX_KEY.publisherTree);
    return { items: page.items.map(publisherOfState), next: page.next };
  }

  async deletePublisher(id: string, owner: string, counted: boolean): Promise<DeletePublisherOutcome> {
    const failure = await this.table.transact(deletePublisherWrites(this.table.name, id, owner, { counted }));
    if (!failure) return 'deleted';
    const record = failure[0]?.Item;
    if (!record) return 'absent';
    // Registered before owners were kept, so never counted: deleted without the count.
    if (counted && record.owner === undefined) return this.deletePublisher(id, owner, false);
    return 'not-owner';
  }

  async getState(publisherId: string): Promise<PublisherState | undefined> {
    const item = await this.table.get(keys.publisherState(publisherId));
    return item && toState(item);
  }

  async acceptEvent(e: EventToAccept): Promise<AcceptOutcome> {
    if (!e.rate) {
      const outcome = await this.tryAccept(e, undefined);
      return outcome.kind === 'rate-branch' ? { kind: 'stale' } : outcome;
    }
    const nowMs = Date.parse(e.acceptedAt);
    const rate = {
      nowMs,
      intervalMs: e.rate.intervalMs,
      toleranceMs: (e.rate.burst - 1) * e.rate.intervalMs,
    };
    // The branch this instance expects from what it wrote last (idle: reset); a wrong guess (the
    // publisher's events went through other instances too) is one transaction more, then right.
    let rateAt = this.rateAt.get(e.publisherId);
    for (let attempt = 1; ; attempt++) {
      const step: RateStep = {
        ...rate,
        branch: rateAt !== undefined && rateAt >= nowMs ? 'advance' : 'reset',
      };
      const outcome = await this.tryAccept(e, step);
      if (outcome.kind === 'accepted') {
        this.remember(
          e.publisherId,
          step.branch === 'reset' ? nowMs + step.intervalMs : (rateAt ?? nowMs) + step.intervalMs,
        );
        return outcome;
      }
      if (outcome.kind !== 'rate-branch') return outcome;
      rateAt = outcome.rateAt;
      if (rateAt !== undefined && rateAt - nowMs > rate.toleranceMs) {
        this.remember(e.publisherId, rateAt);
        return {
          kind: 'over-rate',
          publisherAddress: outcome.publisherAddress,
          retryAfterMs: rateAt - rate.toleranceMs - nowMs,
        };
      }
      if (attempt >= 3) {
        // Rare: the publisher's events raced through other instances three times in a row.
        throw new ServiceUnavailableError('The publisher is busy with other events; send this one again', 1);
      }
    }
  }

  /** The rate each publisher's state had when this instance last wrote or read it (a guess of the branch). */
  private readonly rateAt = new Map<string, number>();

  private remember(publisherId: string, rateAt: number): void {
    this.rateAt.delete(publisherId);
    if (this.rateAt.size >= RATE_CACHE_SIZE) {
      const oldest = this.rateAt.keys().next().value;
      if (oldest !== undefined) this.rateAt.delete(oldest);
    }
    this.rateAt.set(publisherId, rateAt);
  }

  /** One publish transaction; `rate-branch`: only the rate's branch was wrong (`rateAt` is the state's). */
  private async tryAccept(
    e: EventToAccept,
    rate: RateStep | undefined,
  ): Promise<AcceptOutcome | { kind: 'rate-branch'; rateAt: number | undefined; publisherAddress: string }> {
    const failure = await this.table.transact(acceptEventWrites(this.table.name, e, rate));
    if (!failure) return { kind: 'accepted' };
    // A publisher deleted meanwhile (no state item) wins over a repeat: callers may know its
    // address from a cache. A repeat cannot have the wrong source: its first copy was accepted.
    const stateCheck = failure[1];
    if (stateCheck?.Code === 'ConditionalCheckFailed') {
      const state = stateCheck.Item;
      if (!state) return { kind: 'unknown-publisher' };
      if (e.producer !== undefined && typeof state.owner === 'string' && state.owner !== e.producer) {
        return { kind: 'not-owner', publisherAddress: String(state.resourceAddress) };
      }
      const sources = state.sources instanceof Set ? (state.sources as Set<unknown>) : new Set();
      if (!sources.has(e.event.source)) {
        return { kind: 'wrong-source', publisherAddress: String(state.resourceAddress) };
      }
      if (!e.publisherAddresses.includes(String(state.resourceAddress))) {
        return { kind: 'value-outside', publisherAddress: String(state.resourceAddress) };
      }
    }
    if (failure[0]?.Code === 'ConditionalCheckFailed') return { kind: 'duplicate' };
    const state = stateCheck?.Code === 'ConditionalCheckFailed' ? stateCheck.Item : undefined;
    // A repeat, then an older event, are answered before the rate: neither would count against it.
    if (!rate || !state || (typeof state.timeKey === 'string' && state.timeKey > e.timeKey)) {
      return { kind: 'stale' };
    }
    return {
      kind: 'rate-branch',
      rateAt: typeof state.rateAt === 'number' ? state.rateAt : undefined,
      publisherAddress: String(state.resourceAddress),
    };
  }

  async forgetAcceptedEvent(publisherId: string, source: string, id: string): Promise<void> {
    await this.table.delete({ Key: keys.acceptedEvent(publisherId, source, id) });
  }
}
