/**
 * The publish as one conditional UpdateItem of the publisher's state item, a pure builder free of
 * the SDK (DynamoPublisherStore sends it). The state item itself keeps the current event's key
 * (`eventKey`), which is what recognises a repeat: no item per accepted event, so a publish writes
 * one item, 1 write unit while the state item is at most 1 KB (docs/architecture.md).
 */
import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { eventKey } from '../domain/delivery-cursor';
import type { EventToAccept } from '../domain/model';
import { isResourceSuffix } from '../domain/resource-address';
import { keys } from './keys';

export type Update = Omit<UpdateCommandInput, 'TableName'>;

/**
 * A publisher's rate as the state item keeps it (GCRA): `rateAt`, the theoretical time of its next
 * event (epoch ms). An event at `nowMs` conforms when `rateAt - nowMs <= toleranceMs`; it then
 * moves `rateAt` to `max(rateAt, nowMs) + intervalMs`. An update expression has no `max`, so the
 * caller picks the branch: `reset` (the publisher was idle: `rateAt` is past or absent) or
 * `advance` (it is within its burst); a wrong pick fails the condition, whose old item says which.
 */
export interface RateStep {
  readonly branch: 'reset' | 'advance';
  readonly nowMs: number;
  readonly intervalMs: number;
  readonly toleranceMs: number;
}

/**
 * Make the event the current state if the publisher exists, its address is one of those the event
 * allows (at or above every value's address, ending with the source), it is the producer's (or
 * nobody's), the event is not the current one already and not older, and (with `rate`) the rate's
 * branch holds. lib/domain/acceptance.ts `judgeAcceptance` is the same rule; the old item that a failed
 * condition returns (ALL_OLD) is judged by it to tell the refusals apart.
 */
export function acceptEventUpdate(e: EventToAccept, rate?: RateStep): Update {
  // Those of the addresses the values allow that end with the source (whole segments; the domain
  // gives no others): the condition that the state's address is one of them checks the source
  // too, and the item keeps no list of sources. None: the condition cannot hold, and the old item
  // says why.
  const allowed = e.publisherAddresses.filter((address) => isResourceSuffix(e.event.source, address));
  const addressValues: Record<string, string> = {};
  const addressLists: string[] = [];
  // IN takes at most 100 operands; an address has up to 256 segments.
  for (let start = 0; start < allowed.length; start += 100) {
    const names = allowed.slice(start, start + 100).map((address, j) => {
      const name = `:address${start + j}`;
      addressValues[name] = address;
      return name;
    });
    addressLists.push(`resourceAddress IN (${names.join(', ')})`);
  }
  const addressCondition =
    addressLists.length > 0 ? ` AND (${addressLists.join(' OR ')})` : ' AND attribute_not_exists(pk)';
  const rated = rateParts(rate);
  return {
    Key: keys.publisherState(e.publisherId),
    UpdateExpression: `SET #event = :event, timeKey = :timeKey, eventKey = :eventKey, acceptedAt = :acceptedAt${rated.update}`,
    ConditionExpression:
      'attribute_exists(pk)' +
      ' AND (attribute_not_exists(eventKey) OR eventKey <> :eventKey)' +
      ' AND (attribute_not_exists(timeKey) OR timeKey <= :timeKey)' +
      addressCondition +
      (e.producer === undefined ? '' : ' AND (attribute_not_exists(#owner) OR #owner = :producer)') +
      rated.condition,
    ExpressionAttributeNames: {
      '#event': 'event',
      ...(e.producer === undefined ? {} : { '#owner': 'owner' }),
    },
    ExpressionAttributeValues: {
      ...(e.producer === undefined ? {} : { ':producer': e.producer }),
      ':event': JSON.stringify(e.event),
      ':timeKey': e.timeKey,
      ':eventKey': eventKey(e.event),
      ':acceptedAt': e.acceptedAt,
      ...addressValues,
      ...rated.values,
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/**
 * Undo an acceptance (PublisherStore.forgetAcceptedEvent): the state's event key goes if it is
 * still this event's, so that the event's retry (of the same time) is taken again; an event
 * accepted meanwhile keeps its own.
 */
export function forgetEventUpdate(publisherId: string, source: string, id: string): Update {
  return {
    Key: keys.publisherState(publisherId),
    UpdateExpression: 'REMOVE eventKey',
    ConditionExpression: 'eventKey = :eventKey',
    ExpressionAttributeValues: { ':eventKey': eventKey({ source, id }) },
  };
}

/** The publish update's part for the rate: what it sets, its condition and their values. */
function rateParts(rate: RateStep | undefined): {
  update: string;
  condition: string;
  values: Record<string, number>;
} {
  if (rate === undefined) return { update: '', condition: '', values: {} };
  if (rate.branch === 'reset') {
    return {
      update: ', rateAt = :rateNext',
      condition: ' AND (attribute_not_exists(rateAt) OR rateAt < :rateNow)',
      values: { ':rateNow': rate.nowMs, ':rateNext': rate.nowMs + rate.intervalMs },
    };
  }
  return {
    update: ', rateAt = rateAt + :rateInterval',
    condition: ' AND rateAt >= :rateNow AND rateAt <= :rateLimit',
    values: {
      ':rateNow': rate.nowMs,
      ':rateLimit': rate.nowMs + rate.toleranceMs,
      ':rateInterval': rate.intervalMs,
    },
  };
}
