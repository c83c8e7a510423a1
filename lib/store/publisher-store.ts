import { judgeAcceptance } from '../domain/acceptance';
import type {
  AcceptOutcome,
  EventToAccept,
  Page,
  PageRequest,
  Publisher,
  PublisherState,
} from '../domain/model';
import type { PublisherStore } from '../domain/ports';
import type { DynamoTable } from './dynamo-table';
import { publisherOfState, toPublisher, toState } from './items';
import { INDEX, INDEX_KEY, keys } from './keys';
import { acceptEventWrites, createPublisherWrites, deletePublisherWrites } from './transactions';

export class DynamoPublisherStore implements PublisherStore {
  constructor(private readonly table: DynamoTable) {}

  /** The condition on the publisher's id is its address's uniqueness: the id follows from the address. */
  async createPublisher(p: Publisher): Promise<boolean> {
    const failure = await this.table.transact(createPublisherWrites(this.table.name, p));
    if (!failure) return true;
    if (failure[0]?.Code === 'ConditionalCheckFailed') return false;
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

  async deletePublisher(id: string): Promise<boolean> {
    const failure = await this.table.transact(deletePublisherWrites(this.table.name, id));
    return !failure;
  }

  async getState(publisherId: string): Promise<PublisherState | undefined> {
    const item = await this.table.get(keys.publisherState(publisherId));
    return item && toState(item);
  }

  async acceptEvent(e: EventToAccept): Promise<AcceptOutcome> {
    const failure = await this.table.transact(acceptEventWrites(this.table.name, e));
    if (!failure) return { kind: 'accepted' };
    // The state item comes back only when its own condition failed; when that held, the repeat
    // alone refused the event. Otherwise the rule says which condition decides (a publisher
    // deleted meanwhile wins over a repeat: callers may know its address from a cache).
    const stateCheck = failure[1];
    if (stateCheck?.Code !== 'ConditionalCheckFailed') return { kind: 'duplicate' };
    const state = stateCheck.Item && toState(stateCheck.Item);
    const outcome = judgeAcceptance(e, state, failure[0]?.Code === 'ConditionalCheckFailed');
    // Refused by the condition, so never accepted: what is left is its time.
    return outcome.kind === 'accepted' ? { kind: 'stale' } : outcome;
  }

  async forgetAcceptedEvent(publisherId: string, source: string, id: string): Promise<void> {
    await this.table.delete({ Key: keys.acceptedEvent(publisherId, source, id) });
  }
}
