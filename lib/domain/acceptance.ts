import { eventKey } from './delivery-cursor';
import { rateStep } from './event-rate';
import type { AcceptOutcome, EventToAccept } from './model';
import { isResourceSuffix } from './resource-address';

/** What a publisher's current state holds that an event's acceptance is judged by. */
export interface AcceptingState {
  readonly resourceAddress: string;
  /** The current state's time key; absent before the first event. */
  readonly timeKey?: string | undefined;
  /** The producer principal that registered the publisher; absent: anyone may publish. */
  readonly owner?: string | undefined;
  /** The publisher's rate as its state keeps it (lib/domain/event-rate.ts). */
  readonly rateAt?: number | undefined;
  /**
   * `eventKey` of the current state's event: what a repeat is recognised by. Absent before the
   * first event, in a state written before it was kept (release 0.2.0), and once the acceptance of
   * the current event was undone (PublisherStore.forgetAcceptedEvent).
   */
  readonly eventKey?: string | undefined;
}

/**
 * Whether the publisher's state takes the event (PublisherStore.acceptEvent), and if not why, in
 * the order that decides when several checks fail: the publisher is gone; it belongs to another
 * producer principal than the event's (when both are known); the source is not one of its
 * address's whole-segment suffixes; its address is not among `publisherAddresses`; the event is the
 * current state's already (same `eventKey`: a repeat); it is older than the state (an equal time is
 * taken); it is over the publisher's rate, when one is given (neither a repeat nor an older event
 * counts against it). Only the current event is remembered, so the repeat of an event that is no
 * longer the current state is refused as older, or taken again when its time is the state's
 * (docs/architecture.md, "Publishing and repeats"). Each store applies the rule as it can: the
 * DynamoDB store as its update's conditions and this to tell the refusals apart, the node's store
 * as it is.
 */
export function judgeAcceptance(e: EventToAccept, state: AcceptingState | undefined): AcceptOutcome {
  if (!state) return { kind: 'unknown-publisher' };
  const publisherAddress = state.resourceAddress;
  if (e.producer !== undefined && state.owner !== undefined && state.owner !== e.producer) {
    return { kind: 'not-owner', publisherAddress };
  }
  if (!isResourceSuffix(e.event.source, publisherAddress)) {
    return { kind: 'wrong-source', publisherAddress };
  }
  if (!e.publisherAddresses.includes(publisherAddress)) {
    return { kind: 'value-outside', publisherAddress };
  }
  if (state.eventKey !== undefined && state.eventKey === eventKey(e.event)) return { kind: 'duplicate' };
  if (state.timeKey !== undefined && state.timeKey > e.timeKey) return { kind: 'stale' };
  if (e.rate) {
    const step = rateStep(state.rateAt, Date.parse(e.acceptedAt), e.rate);
    if (step.kind === 'over') return { kind: 'over-rate', publisherAddress, retryAfterMs: step.retryAfterMs };
  }
  return { kind: 'accepted' };
}
