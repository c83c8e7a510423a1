import type { Publisher, Subscription } from '../domain/model';

/** SubscriptionInfo, with member names exactly as contract section 4 writes them. */
export interface SubscriptionInfo {
  SubscriptionId: string;
  UriLocation: string;
  ResourceAddress: string;
  EndpointUri?: string;
}

export function subscriptionInfo(subscription: Subscription, apiBase: string): SubscriptionInfo {
  return {
    SubscriptionId: subscription.id,
    UriLocation: subscriptionLocation(apiBase, subscription.id),
    ResourceAddress: subscription.resourceAddress,
    EndpointUri: subscription.endpointUri,
  };
}

export function publisherRecord(publisher: Publisher, apiBase: string): SubscriptionInfo {
  return {
    SubscriptionId: publisher.id,
    UriLocation: publisherLocation(apiBase, publisher.id),
    ResourceAddress: publisher.resourceAddress,
    ...(publisher.endpointUri === undefined ? {} : { EndpointUri: publisher.endpointUri }),
  };
}

export const subscriptionLocation = (apiBase: string, id: string) => `${apiBase}/subscriptions/${id}`;
export const publisherLocation = (apiBase: string, id: string) => `${apiBase}/publishers/${id}`;
