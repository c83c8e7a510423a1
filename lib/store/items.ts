import { type NotificationEvent, wireEvent } from '../domain/event';
import type { Publisher, PublisherState, Subscription } from '../domain/model';
import type { Item } from './dynamo-table';
import { keys } from './keys';

/** Items to domain records and back: the attribute names of the table layout (see keys.ts). */
export function subscriptionAttributes(s: Subscription): Item {
  return {
    id: s.id,
    resourceAddress: s.resourceAddress,
    endpointUri: s.endpointUri,
    owner: s.owner,
    createdAt: s.createdAt,
  };
}

/** The subscription's item, in its owner's generation `gen`. */
export function subscriptionItem(s: Subscription, gen: number): Item {
  return {
    ...keys.subscription(s.id),
    ...keys.subscriptionByAddress(s.resourceAddress, s.owner, gen, s.id),
    listPk: keys.subscriptionsOf(s.owner, gen),
    listSk: `${s.createdAt}#${s.id}`,
    gen,
    ...subscriptionAttributes(s),
  };
}

/** The publisher's record. */
export function publisherItem(p: Publisher): Item {
  return {
    ...keys.publisher(p.id),
    listPk: keys.publishers,
    listSk: `${p.createdAt}#${p.id}`,
    id: p.id,
    resourceAddress: p.resourceAddress,
    endpointUri: p.endpointUri,
    createdAt: p.createdAt,
    owner: p.owner,
  };
}

/** The publisher's state item, before its first event. */
export function publisherStateItem(p: Publisher): Item {
  return {
    ...keys.publisherState(p.id),
    ...keys.publisherTree(p.resourceAddress),
    publisherId: p.id,
    resourceAddress: p.resourceAddress,
    // The record's other members, which never change, so that the publisher tree index (which
    // projects them) lists publishers under an address with one query.
    endpointUri: p.endpointUri,
    createdAt: p.createdAt,
    // Who may publish: the publish update's condition, so it needs no read. (The event's source
    // needs no attribute: the addresses its update's condition allows all end with it.)
    owner: p.owner,
  };
}

export function toSubscription(item: Item): Subscription {
  return {
    id: String(item.id),
    resourceAddress: String(item.resourceAddress),
    endpointUri: String(item.endpointUri),
    owner: String(item.owner),
    createdAt: String(item.createdAt),
    ...(typeof item.failingSince === 'number' ? { endpointFailingSince: item.failingSince } : {}),
    ...(typeof item.suspendedAt === 'number' ? { endpointSuspendedAt: item.suspendedAt } : {}),
  };
}

export function toPublisher(item: Item): Publisher {
  return {
    id: String(item.id),
    resourceAddress: String(item.resourceAddress),
    endpointUri: typeof item.endpointUri === 'string' ? item.endpointUri : undefined,
    createdAt: String(item.createdAt),
    ...(typeof item.owner === 'string' ? { owner: item.owner } : {}),
  };
}

/** A publisher's record from its state item, which carries it too (see the publisher tree index). */
export function publisherOfState(item: Item): Publisher {
  return toPublisher({ ...item, id: item.publisherId });
}

export function toState(item: Item): PublisherState {
  return {
    publisherId: String(item.publisherId),
    resourceAddress: String(item.resourceAddress),
    // States stored before the wire form was the rule are served in it.
    event:
      typeof item.event === 'string' ? wireEvent(JSON.parse(item.event) as NotificationEvent) : undefined,
    timeKey: typeof item.timeKey === 'string' ? item.timeKey : undefined,
    acceptedAt: typeof item.acceptedAt === 'string' ? item.acceptedAt : undefined,
  };
}
