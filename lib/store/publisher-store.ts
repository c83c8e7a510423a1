import { judgeAcceptance } from '../domain/acceptance';
import { rateStep } from '../domain/event-rate';
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
import { acceptEventUpdate, forgetEventUpdate, type RateStep } from './publish-update';
import { createPublisherWrites, deletePublisherWrites } from './transactions';

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
    // publisher's events went through other instances too) is one update more, then right.
    let rateAt = this.rateAt.get(e.publisherId);
    for (let attempt = 1; ; attempt++) {
      const step: RateStep = {
        ...rate,
        branch: rateAt !== undefined && rateAt >= nowMs ? 'advance' : 'reset',
      };
      const outcome = await this.tryAccept(e, step);
      if (outcome.kind === 'accepted') {
        const next = rateStep(rateAt, nowMs, e.rate);
        if (next.kind === 'conforms') this.remember(e.publisherId, next.rateAt);
        return outcome;
      }
      if (outcome.kind !== 'rate-branch') return outcome;
      rateAt = outcome.rateAt;
      const judged = rateStep(rateAt, nowMs, e.rate);
      if (judged.kind === 'over') {
        if (rateAt !== undefined) this.remember(e.publisherId, rateAt);
        return {
          kind: 'over-rate',
          publisherAddress: outcome.publisherAddress,
          retryAfterMs: judged.retryAfterMs,
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

  /** One publish update; `rate-branch`: only the rate's branch was wrong (`rateAt` is the state's). */
  private async tryAccept(
    e: EventToAccept,
    rate: RateStep | undefined,
  ): Promise<AcceptOutcome | { kind: 'rate-branch'; rateAt: number | undefined; publisherAddress: string }> {
    const outcome = await this.table.tryUpdate(acceptEventUpdate(e, rate));
    if (outcome.written) return { kind: 'accepted' };
    // The condition failed: the rule, applied to the state as it was (none: no publisher), says
    // which part of it decides.
    const item = outcome.current.pk === undefined ? undefined : outcome.current;
    const state = item && {
      ...toState(item),
      ...(typeof item.owner === 'string' ? { owner: item.owner } : {}),
      ...(typeof item.eventKey === 'string' ? { eventKey: item.eventKey } : {}),
    };
    // Judged without the rate: the rate's branch is the one condition the rule cannot see here.
    const judged = judgeAcceptance({ ...e, rate: undefined }, state);
    if (judged.kind !== 'accepted') return judged;
    // Refused by the condition, so never accepted: without a rate what is left is its time; with
    // one, the branch this instance guessed for the rate was wrong.
    if (!rate || !item) return { kind: 'stale' };
    return {
      kind: 'rate-branch',
      rateAt: typeof item.rateAt === 'number' ? item.rateAt : undefined,
      publisherAddress: String(item.resourceAddress),
    };
  }

  async forgetAcceptedEvent(publisherId: string, source: string, id: string): Promise<void> {
    await this.table.update(forgetEventUpdate(publisherId, source, id));
  }
}
