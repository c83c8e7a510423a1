import type { Backoff } from './backoff';
import {
  config,
  deliveryConfig,
  endpointTlsConfig,
  limitsConfig,
  signingConfig,
  webhookKeyConfig,
} from './config';
import { Deliverer } from './delivery/deliverer';
import { DeliveryBatch } from './delivery/delivery-batch';
import { HttpEndpointGate } from './delivery/endpoint-gate';
import { FailedRecordBackoff } from './delivery/failed-record-backoff';
import { FanOut } from './delivery/fan-out';
import { createNetworkPolicy, type NetworkPolicy } from './delivery/network-policy';
import { ServiceCredentials } from './delivery/sender-credentials';
import type { NodeScope } from './domain/node-scope';
import type {
  CounterStore,
  DeadLetterStore,
  DeliveryCursorStore,
  DeliveryPort,
  EndpointBreakerStore,
  ProducerGrantStore,
  PublisherStore,
  StoreHealth,
  SubscriptionStore,
} from './domain/ports';
import { ProducerAccess } from './domain/producers';
import { Publish } from './domain/publish';
import { Publishers } from './domain/publishers';
import type { Quota } from './domain/quotas';
import { RotateSecret } from './domain/rotate-secret';
import { Subscribe } from './domain/subscribe';
import { SubscriptionDeliveries } from './domain/subscription-deliveries';
import { Subscriptions } from './domain/subscriptions';
import { type WebhookKeyStore, WebhookKeys } from './domain/webhook-keys';
import * as region from './hosts/region';
import type { QueuePort } from './queue/queue-port';
import { QueuedDelivery } from './queue/queued-delivery';
import { QueuedRemoval } from './queue/queued-removal';
import type { SecretBox } from './secrets/secret-box';
import { type ClientTlsReader, ClientTlsSource } from './tls/client-tls';

/**
 * What differs between the hosts of the one contract: where its data lives and how its queues
 * run. The region's are DynamoDB and SQS (lib/hosts/region.ts); a node's are its disk and an
 * in-process queue (agent/serve/node-host.ts). Everything else (the rules, delivery, signing,
 * the HTTP layer) is the same code, wired once below. Each builder is called at most once.
 */
export interface HostAdapters {
  /**
   * The subscriptions; with `box`, their signing secrets too, sealed at rest with it (for the
   * functions that sign or keep secrets); without, reads leave them out.
   */
  subscriptionStore(box?: SecretBox): SubscriptionStore;
  publisherStore(): PublisherStore;
  deliveryCursors(): DeliveryCursorStore;
  deadLetters(): DeadLetterStore;
  counters(): CounterStore;
  storeHealth(): StoreHealth;
  /** The `v1a` keys; with `box`, their private halves too, sealed at rest with it (signers and the rotation). */
  webhookKeyStore(box?: SecretBox): WebhookKeyStore;
  /** What seals signing secrets and private keys: a data key from KMS in the region, from a file on a node. */
  secretBox(): SecretBox;
  queue(): QueuePort;
  /** Where deliveries read their TLS client identity and private CAs (ENDPOINT_TLS_… settings). */
  endpointTlsReader(): ClientTlsReader;
  /** Which endpoints are failing, and since when, and which are suspended (docs/delivery.md). */
  endpointBreaker(): EndpointBreakerStore;
  /** The operator's grants to producer principals (`npm run grants`); a node has none: its scope decides. */
  producerGrants?(): ProducerGrantStore;
  /** Where accepted events go beside the host's own fan-out (a node's: its outbox to the region). */
  forwardAccepted?: DeliveryPort['eventAccepted'];
  /** The node a node host serves (section 11 of the contract); the region serves every address. */
  readonly scope?: NodeScope;
}

/**
 * The settings every function shares, read when its module is loaded (Lambda's init phase): a
 * missing or malformed one fails the init, with a message naming it, instead of every request.
 */
const settings = config();

/**
 * The composition root. Each piece is built on first use and kept for the process (its warm
 * invocations reuse it); a function builds only what its handler reaches, and so needs only its
 * own settings (queue URLs, the signing key, TLS material) beside the shared ones.
 */
const instances = new Map<() => unknown, unknown>();

function kept<T>(key: () => T, build: () => T): T {
  if (!instances.has(key)) instances.set(key, build());
  return instances.get(key) as T;
}

let installed: HostAdapters | undefined;

/**
 * Makes `adapters` this process's host, before any piece is built: the node agent's `--serve`
 * calls it once at its start. Without it, the process is a function of the region, whose adapters
 * (lib/hosts/region.ts) each accessor below names on its own, so that a function's bundle holds
 * only those its handler reaches.
 */
export function serveWith(adapters: HostAdapters): void {
  if (instances.size > 0) throw new Error('serveWith() must be called before any service is used');
  installed = adapters;
}

function userAgent(): string {
  return `${settings.serviceName}/${settings.serviceVersion}`;
}

/** The subscriptions, read without their signing secrets (for the functions that never sign). */
export function subscriptionStore(): SubscriptionStore {
  return kept(subscriptionStore, () =>
    installed ? installed.subscriptionStore() : region.subscriptionStore(),
  );
}

/** Seals and opens signing secrets and private keys at rest. */
export function secretBox(): SecretBox {
  return kept(secretBox, () => (installed ? installed.secretBox() : region.secretBox()));
}

/** The subscriptions with their signing secrets: for the functions that sign or keep secrets. */
export function signingSubscriptionStore(): SubscriptionStore {
  return kept(signingSubscriptionStore, () =>
    installed ? installed.subscriptionStore(secretBox()) : region.subscriptionStore(secretBox()),
  );
}

export function publisherStore(): PublisherStore {
  return kept(publisherStore, () => (installed ? installed.publisherStore() : region.publisherStore()));
}

export function deliveryCursors(): DeliveryCursorStore {
  return kept(deliveryCursors, () => (installed ? installed.deliveryCursors() : region.deliveryCursors()));
}

export function deadLetters(): DeadLetterStore {
  return kept(deadLetters, () => (installed ? installed.deadLetters() : region.deadLetters()));
}

export function counters(): CounterStore {
  return kept(counters, () => (installed ? installed.counters() : region.counters()));
}

export function storeHealth(): StoreHealth {
  return kept(storeHealth, () => (installed ? installed.storeHealth() : region.storeHealth()));
}

/** The `v1a` keys as the keys route lists them: public halves only, so it needs no KMS. */
export function publishedWebhookKeys(): WebhookKeys {
  return kept(
    publishedWebhookKeys,
    () =>
      new WebhookKeys(installed ? installed.webhookKeyStore() : region.webhookKeyStore(), webhookKeyConfig()),
  );
}

/** The `v1a` keys with their private halves: for the functions that sign, and the daily rotation. */
export function signingWebhookKeys(): WebhookKeys {
  return kept(
    signingWebhookKeys,
    () =>
      new WebhookKeys(
        installed ? installed.webhookKeyStore(secretBox()) : region.webhookKeyStore(secretBox()),
        webhookKeyConfig(),
      ),
  );
}

/** The TLS client identity and `v1a` key of the functions that send to consumers. */
function serviceCredentials(): ServiceCredentials {
  return kept(serviceCredentials, () => {
    const tls = endpointTlsConfig();
    const read = installed ? installed.endpointTlsReader() : region.endpointTlsReader();
    return new ServiceCredentials(new ClientTlsSource(read, tls.refreshSeconds * 1000), signingWebhookKeys());
  });
}

export function networkPolicy(): NetworkPolicy {
  return kept(networkPolicy, () => createNetworkPolicy(settings.networkPolicy));
}

/** The host's queues: SQS in the region, an in-process queue on a node. */
export function queue(): QueuePort {
  return kept(queue, () => (installed ? installed.queue() : region.queue()));
}

// The queue is resolved at the first send, so that a route which never enqueues (a subscribe to an
// address without states) does not need the queue settings.
const queueOnFirstUse: QueuePort = {
  send: (name, messages) => queue().send(name, messages),
  changeVisibility: (name, receiptHandle, timeoutMs) =>
    queue().changeVisibility(name, receiptHandle, timeoutMs),
};

/** Accepted events to their subscribers through the fan-out queue, and where the host forwards them too. */
export function delivery(): DeliveryPort {
  return kept(delivery, () => {
    const queued = new QueuedDelivery(queueOnFirstUse);
    const forward = installed?.forwardAccepted;
    if (!forward) return queued;
    return {
      eventAccepted: async (accepted) => {
        await queued.eventAccepted(accepted);
        await forward(accepted);
      },
      currentStatesFor: (subscription, states) => queued.currentStatesFor(subscription, states),
    };
  });
}

/**
 * Fan-out, which attempts a small batch's notifications itself (the deliver function's
 * DeliveryBatch, built on first use) rather than queueing them: docs/delivery.md.
 */
export function fanOut(): FanOut {
  return kept(
    fanOut,
    () =>
      new FanOut(subscriptionStore(), queue(), {}, Date.now, (entries, metrics) =>
        deliveryBatch().deliverNow(entries, metrics),
      ),
  );
}

/** The back-off between a notification's attempts (about 1 s, 2 s, 4 s … at most 5 min). */
function deliveryBackoff(): Backoff {
  const { backoffBaseMs, backoffMaxMs } = deliveryConfig();
  return { baseMs: backoffBaseMs, maxMs: backoffMaxMs };
}

/** A fan-out that failed is run again after a notification's back-off, not the queue's 6 minutes. */
export function fanOutBackoff(): FailedRecordBackoff {
  return kept(fanOutBackoff, () => new FailedRecordBackoff(queue(), 'fan-out', deliveryBackoff()));
}

export function deliveryBatch(): DeliveryBatch {
  return kept(deliveryBatch, () => {
    const deliverer = new Deliverer(signingSubscriptionStore(), deliveryCursors(), networkPolicy(), {
      timeoutMs: settings.deliveryTimeoutMs,
      userAgent: userAgent(),
      retryWindowMs: deliveryConfig().retryWindowSeconds * 1000,
      backoff: deliveryBackoff(),
      credentials: serviceCredentials(),
      breaker: {
        store: endpointBreaker(),
        suspendAfterMs: limitsConfig().endpointSuspendAfterSeconds * 1000,
      },
    });
    const storeFailure = new FailedRecordBackoff(queue(), 'delivery', deliveryBackoff());
    return new DeliveryBatch(deliverer, queue(), deadLetters(), storeFailure);
  });
}

export function subscriptions(): Subscriptions {
  return kept(
    subscriptions,
    () => new Subscriptions(subscriptionStore(), new QueuedRemoval(queueOnFirstUse)),
  );
}

/** A subscription's delivery status and dead letters, for its owner. */
export function subscriptionDeliveries(): SubscriptionDeliveries {
  return kept(
    subscriptionDeliveries,
    () =>
      new SubscriptionDeliveries(
        subscriptionStore(),
        deliveryCursors(),
        deadLetters(),
        delivery(),
        endpointBreaker(),
      ),
  );
}

export function subscribe(): Subscribe {
  return kept(
    subscribe,
    () =>
      new Subscribe(
        signingSubscriptionStore(),
        new HttpEndpointGate(
          networkPolicy(),
          settings.sanityCheckTimeoutMs,
          userAgent(),
          serviceCredentials(),
        ),
        delivery(),
        subscriptionQuota(),
        installed?.scope,
      ),
  );
}

export function rotateSecret(): RotateSecret {
  return kept(
    rotateSecret,
    () => new RotateSecret(signingSubscriptionStore(), signingConfig().rotationGraceSeconds),
  );
}

export function publishers(): Publishers {
  return kept(
    publishers,
    () => new Publishers(publisherStore(), producerAccess(), publisherQuota(), installed?.scope),
  );
}

export function publish(): Publish {
  return kept(
    publish,
    () =>
      new Publish(publisherStore(), delivery(), {
        timeToleranceMs: settings.eventTimeToleranceMs,
        rate: publisherRate(),
      }),
  );
}

/** The address prefixes operators grant producer principals (`npm run grants`). */
export function producerGrants(): ProducerGrantStore {
  return kept(producerGrants, () => {
    const grants = installed ? installed.producerGrants?.() : region.producerGrants();
    if (!grants)
      throw new Error('this host keeps no producer grants: its scope decides what may be published');
    return grants;
  });
}

/** Registration's check of the producer's grants (docs/security.md). */
export function producerAccess(): ProducerAccess | undefined {
  // A node keeps no grants: what may be published there is its node's (NodeScope).
  return kept(producerAccess, () =>
    installed && !installed.producerGrants ? undefined : new ProducerAccess(producerGrants(), settings.stage),
  );
}

/** The quota of subscriptions per owner (docs/security.md). */
export function subscriptionQuota(): Quota {
  return kept(subscriptionQuota, () => ({
    name: 'subscriptions per owner',
    value: limitsConfig().subscriptionsPerOwner,
    parameter: 'subscriptionsPerOwner',
    variable: 'SUBSCRIPTIONS_PER_OWNER',
  }));
}

/** The quota of publishers per producer principal (docs/security.md). */
export function publisherQuota(): Quota {
  return kept(publisherQuota, () => ({
    name: 'publishers per producer principal',
    value: limitsConfig().publishersPerProducer,
    parameter: 'publishersPerProducer',
    variable: 'PUBLISHERS_PER_PRODUCER',
  }));
}

/** A publisher's event rate (docs/security.md). */
export function publisherRate(): { eventsPerSecond: number; burst: number } {
  return kept(publisherRate, () => ({
    eventsPerSecond: limitsConfig().publisherEventRate,
    burst: limitsConfig().publisherEventBurst,
  }));
}

/** The breaker's state of the consumers' endpoints (docs/delivery.md). */
export function endpointBreaker(): EndpointBreakerStore {
  return kept(endpointBreaker, () => (installed ? installed.endpointBreaker() : region.endpointBreaker()));
}
