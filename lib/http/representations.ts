import type { Publisher, Subscription } from '../domain/model';

/** SubscriptionInfo, with member names exactly as the OpenAPI document (lib/http/openapi.json) writes them. */
export interface SubscriptionInfo {
  SubscriptionId: string;
  UriLocation: string;
  ResourceAddress: string;
  EndpointUri: string;
}

export function subscriptionInfo(subscription: Subscription, apiBase: string): SubscriptionInfo {
  return {
    SubscriptionId: subscription.id,
    UriLocation: subscriptionLocation(apiBase, subscription.id),
    ResourceAddress: subscription.resourceAddress,
    EndpointUri: subscription.endpointUri,
  };
}

/**
 * A publisher record always carries an absolute `EndpointUri` (clients such as sdk-go's PubSub
 * refuse one without): the producer's own, or else where its current state is pulled.
 */
export function publisherRecord(publisher: Publisher, apiBase: string): SubscriptionInfo {
  return {
    SubscriptionId: publisher.id,
    UriLocation: publisherLocation(apiBase, publisher.id),
    ResourceAddress: publisher.resourceAddress,
    EndpointUri: publisher.endpointUri ?? currentStateLocation(apiBase, publisher.resourceAddress),
  };
}

export const subscriptionLocation = (apiBase: string, id: string) => `${apiBase}/subscriptions/${id}`;
export const publisherLocation = (apiBase: string, id: string) => `${apiBase}/publishers/${id}`;
/** Address segments are of unreserved characters and `:`, all valid in a path as they are. */
export const currentStateLocation = (apiBase: string, address: string) => `${apiBase}${address}/CurrentState`;
