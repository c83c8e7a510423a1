import { config } from './config';
import { DirectDelivery } from './delivery/direct-delivery';
import { HttpEndpointGate } from './delivery/endpoint-gate';
import { createNetworkPolicy, type NetworkPolicy } from './delivery/network-policy';
import type { NotificationStore } from './domain/model';
import type { DeliveryPort } from './domain/ports';
import { Publishers } from './domain/publishers';
import { Subscriptions } from './domain/subscriptions';
import { documentClient } from './store/dynamo-client';
import { DynamoStore } from './store/dynamo-store';

/**
 * The composition root: each piece is built once per process on first use, so a function's
 * bundle holds only what its handler reaches.
 */
function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= build();
    return value;
  };
}

const userAgent = once(() => `${config().serviceName}/${config().serviceVersion}`);

export const store = once<NotificationStore>(() => new DynamoStore(documentClient(), config().tableName));

export const networkPolicy = once<NetworkPolicy>(() => createNetworkPolicy(config().networkPolicy));

export const delivery = once<DeliveryPort>(
  () => new DirectDelivery(store(), networkPolicy(), config().deliveryTimeoutMs, userAgent()),
);

export const subscriptions = once(
  () =>
    new Subscriptions(
      store(),
      new HttpEndpointGate(networkPolicy(), config().sanityCheckTimeoutMs, userAgent()),
      delivery(),
    ),
);

export const publishers = once(() => new Publishers(store(), delivery(), config().dedupTtlSeconds));
