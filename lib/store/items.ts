import type { NotificationEvent } from '../domain/event';
import type { Publisher, PublisherState, Subscription } from '../domain/model';
import type { Item } from './dynamo-table';

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

export function toSubscription(item: Item): Subscription {
  return {
    id: String(item.id),
    resourceAddress: String(item.resourceAddress),
    endpointUri: String(item.endpointUri),
    owner: String(item.owner),
    createdAt: String(item.createdAt),
  };
}

export function toPublisher(item: Item): Publisher {
  return {
    id: String(item.id),
    resourceAddress: String(item.resourceAddress),
    endpointUri: typeof item.endpointUri === 'string' ? item.endpointUri : undefined,
    createdAt: String(item.createdAt),
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
    event: typeof item.event === 'string' ? (JSON.parse(item.event) as NotificationEvent) : undefined,
    timeKey: typeof item.timeKey === 'string' ? item.timeKey : undefined,
    acceptedAt: typeof item.acceptedAt === 'string' ? item.acceptedAt : undefined,
  };
}
