import type { AcceptOutcome, EventToAccept } from './model';
import { resourceSuffixes } from './resource-address';

/** What a publisher's current state holds that an event's acceptance is judged by. */
export interface AcceptingState {
  readonly resourceAddress: string;
  /** The current state's time key; absent before the first event. */
  readonly timeKey?: string | undefined;
}

/**
 * Whether the publisher's state takes the event (PublisherStore.acceptEvent), and if not why, in
 * the order that decides when several checks fail: the publisher is gone; the source is not one
 * of its address's whole-segment suffixes; its address is not among `publisherAddresses` (when
 * any are given); the (source, id) was accepted before (`repeated`); the event is older than the
 * state (an equal time is taken). Each store applies the rule as it can: the DynamoDB store as its
 * transaction's conditions and this to tell the refusals apart, the node's store as it is.
 */
export function judgeAcceptance(
  e: EventToAccept,
  state: AcceptingState | undefined,
  repeated: boolean,
): AcceptOutcome {
  if (!state) return { kind: 'unknown-publisher' };
  const publisherAddress = state.resourceAddress;
  if (!resourceSuffixes(publisherAddress).includes(e.event.source)) {
    return { kind: 'wrong-source', publisherAddress };
  }
  if (e.publisherAddresses.length > 0 && !e.publisherAddresses.includes(publisherAddress)) {
    return { kind: 'value-outside', publisherAddress };
  }
  if (repeated) return { kind: 'duplicate' };
  if (state.timeKey !== undefined && state.timeKey > e.timeKey) return { kind: 'stale' };
  return { kind: 'accepted' };
}
