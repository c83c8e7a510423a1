import type { Backoff } from './backoff';
import { config, deliveryConfig, endpointTlsConfig, signingConfig, webhookKeyConfig } from './config';
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
  PublisherStore,
  StoreHealth,
  SubscriptionStore,
} from './domain/ports';
import { Publish } from './domain/publish';
import { Publishers } from './domain/publishers';
import { RotateSecret } from './domain/rotate-secret';
import { Subscribe } from './domain/subscribe';
import { SubscriptionDeliveries } from './domain/subscription-deliveries';
import { Subscriptions } from './domain/subscriptions';
import { type WebhookKeyStore, WebhookKeys } from './domain/webhook-keys';
import { regionAdapters } from './hosts/region';
import type { QueuePort } from './queue/queue-port';
import { QueuedDelivery } from './queue/queued-delivery';
import { QueuedRemoval } from './queue/queued-removal';
import { ClientTlsSource, fileTlsReader } from './tls/client-tls';
import { secretTlsReader } from './tls/secret-tls-reader';

/**
 * What differs between the hosts of the one contract: where its data lives and how its queues
 * run. The region's are DynamoDB and SQS (lib/hosts/region.ts); a node's are its disk and an
 * in-process queue (agent/serve/node-host.ts). Everything else (the rules, delivery, signing,
 * the HTTP layer) is the same code, wired once below. Each builder is called at most once.
 */
export interface HostAdapters {
  /** The subscriptions, read without their signing secrets (for the functions that never sign). */
  subscriptionStore(): SubscriptionStore;
  /** The subscriptions with their signing secrets, sealed at rest: for the functions that sign or keep secrets. */
  signingSubscriptionStore(): SubscriptionStore;
  publisherStore(): PublisherStore;
  deliveryCursors(): DeliveryCursorStore;
  deadLetters(): DeadLetterStore;
  counters(): CounterStore;
  storeHealth(): StoreHealth;
  /** The `v1a` keys; `sealed`: with their private halves, sealed at rest (signers and the rotation). */
  webhookKeyStore(sealed: boolean): WebhookKeyStore;
  queue(): QueuePort;
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
 * calls it once at its start. Without it, the process is a function of the region.
 */
export function serveWith(adapters: HostAdapters): void {
  if (instances.size > 0) throw new Error('serveWith() must be called before any service is used');
  installed = adapters;
}

function host(): HostAdapters {
  installed ??= regionAdapters(settings.tableName);
  return installed;
}

function userAgent(): string {
  return `${settings.serviceName}/${settings.serviceVersion}`;
}

/** The subscriptions, read without their signing secrets (for the functions that never sign). */
export function subscriptionStore(): SubscriptionStore {
  return kept(subscriptionStore, () => host().subscriptionStore());
}

/** The subscriptions with their signing secrets: for the functions that sign or keep secrets. */
export function signingSubscriptionStore(): SubscriptionStore {
  return kept(signingSubscriptionStore, () => host().signingSubscriptionStore());
}

export function publisherStore(): PublisherStore {
  return kept(publisherStore, () => host().publisherStore());
}

export function deliveryCursors(): DeliveryCursorStore {
  return kept(deliveryCursors, () => host().deliveryCursors());
}

export function deadLetters(): DeadLetterStore {
  return kept(deadLetters, () => host().deadLetters());
}

export function counters(): CounterStore {
  return kept(counters, () => host().counters());
}

export function storeHealth(): StoreHealth {
  return kept(storeHealth, () => host().storeHealth());
}

/** The `v1a` keys as the keys route lists them: public halves only, so it needs no KMS. */
export function publishedWebhookKeys(): WebhookKeys {
  return kept(publishedWebhookKeys, () => new WebhookKeys(host().webhookKeyStore(false), webhookKeyConfig()));
}

/** The `v1a` keys with their private halves: for the functions that sign, and the daily rotation. */
export function signingWebhookKeys(): WebhookKeys {
  return kept(signingWebhookKeys, () => new WebhookKeys(host().webhookKeyStore(true), webhookKeyConfig()));
}

/** The TLS client identity and `v1a` key of the functions that send to consumers. */
function serviceCredentials(): ServiceCredentials {
  return kept(serviceCredentials, () => {
    const tls = endpointTlsConfig();
    const read =
      tls.source.kind === 'secret'
        ? secretTlsReader(tls.source.secretId)
        : fileTlsReader(tls.source, tls.caFile);
    return new ServiceCredentials(new ClientTlsSource(read, tls.refreshSeconds * 1000), signingWebhookKeys());
  });
}

export function networkPolicy(): NetworkPolicy {
  return kept(networkPolicy, () => createNetworkPolicy(settings.networkPolicy));
}

/** The host's queues: SQS in the region, an in-process queue on a node. */
export function queue(): QueuePort {
  return kept(queue, () => host().queue());
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
    const forward = host().forwardAccepted;
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

export function fanOut(): FanOut {
  return kept(fanOut, () => new FanOut(subscriptionStore(), queue()));
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
    () => new SubscriptionDeliveries(subscriptionStore(), deliveryCursors(), deadLetters(), delivery()),
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
        host().scope,
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
  return kept(publishers, () => new Publishers(publisherStore(), host().scope));
}

export function publish(): Publish {
  return kept(
    publish,
    () =>
      new Publish(publisherStore(), delivery(), {
        dedupTtlSeconds: settings.dedupTtlSeconds,
        timeToleranceMs: settings.eventTimeToleranceMs,
      }),
  );
}
