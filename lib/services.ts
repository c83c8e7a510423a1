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
import { WebhookKeys } from './domain/webhook-keys';
import type { QueuePort } from './queue/queue-port';
import { QueuedDelivery } from './queue/queued-delivery';
import { QueuedRemoval } from './queue/queued-removal';
import { SqsQueue } from './queue/sqs-queue';
import { awsKms, kmsDataKey } from './secrets/kms-data-key';
import { localDataKey } from './secrets/local-data-key';
import { AesGcmSecretBox } from './secrets/secret-box';
import { DynamoCounterStore } from './store/counter-store';
import { DynamoDeadLetterStore } from './store/dead-letter-store';
import { DynamoDeliveryCursors } from './store/delivery-cursors';
import { documentClient } from './store/dynamo-client';
import { DynamoTable } from './store/dynamo-table';
import { DynamoEndpointBreakerStore } from './store/endpoint-breaker-store';
import { DynamoProducerGrantStore } from './store/producer-grant-store';
import { DynamoPublisherStore } from './store/publisher-store';
import { DynamoWrappedKeyStore } from './store/signing-key-store';
import { DynamoSubscriptionStore } from './store/subscription-store';
import { DynamoWebhookKeyStore } from './store/webhook-key-store';
import { ClientTlsSource, fileTlsReader } from './tls/client-tls';
import { secretTlsReader } from './tls/secret-tls-reader';

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

function userAgent(): string {
  return `${settings.serviceName}/${settings.serviceVersion}`;
}

function table(): DynamoTable {
  return kept(table, () => new DynamoTable(documentClient(), settings.tableName));
}

/** The subscriptions, read without their signing secrets (for the functions that never sign). */
export function subscriptionStore(): SubscriptionStore {
  return kept(subscriptionStore, () => new DynamoSubscriptionStore(table()));
}

/** Encrypts signing secrets: the data key is read from a file locally, unwrapped by KMS when deployed. */
export function secretBox(): AesGcmSecretBox {
  return kept(secretBox, () => {
    const key = signingConfig().key;
    return new AesGcmSecretBox(
      key.kind === 'file'
        ? localDataKey(key.path)
        : kmsDataKey(awsKms(), key.keyId, new DynamoWrappedKeyStore(table())),
    );
  });
}

/** The subscriptions with their signing secrets: for the functions that sign or keep secrets. */
export function signingSubscriptionStore(): SubscriptionStore {
  return kept(signingSubscriptionStore, () => new DynamoSubscriptionStore(table(), secretBox()));
}

export function publisherStore(): PublisherStore {
  return kept(publisherStore, () => new DynamoPublisherStore(table()));
}

export function deliveryCursors(): DeliveryCursorStore {
  return kept(deliveryCursors, () => new DynamoDeliveryCursors(table()));
}

export function deadLetters(): DeadLetterStore {
  return kept(deadLetters, () => new DynamoDeadLetterStore(table()));
}

export function counters(): CounterStore {
  return kept(counters, () => new DynamoCounterStore(table()));
}

export function storeHealth(): StoreHealth {
  return table();
}

/** The `v1a` keys as the keys route lists them: public halves only, so it needs no KMS. */
export function publishedWebhookKeys(): WebhookKeys {
  return kept(
    publishedWebhookKeys,
    () => new WebhookKeys(new DynamoWebhookKeyStore(table()), webhookKeyConfig()),
  );
}

/** The `v1a` keys with their private halves: for the functions that sign, and the daily rotation. */
export function signingWebhookKeys(): WebhookKeys {
  return kept(
    signingWebhookKeys,
    () => new WebhookKeys(new DynamoWebhookKeyStore(table(), secretBox()), webhookKeyConfig()),
  );
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

/** SQS, deployed and locally (`npm start` and the tests run a local queue that speaks its protocol). */
export function queue(): QueuePort {
  return kept(queue, () => {
    const urls = deliveryConfig().queue;
    return new SqsQueue({
      'fan-out': urls.fanOutUrl,
      delivery: urls.deliveryUrl,
      'dead-letter': urls.deadLetterUrl,
      cleanup: urls.cleanupUrl,
    });
  });
}

// The queue is resolved at the first send, so that a route which never enqueues (a subscribe to an
// address without states) does not need the queue settings.
const queueOnFirstUse: QueuePort = {
  send: (name, messages) => queue().send(name, messages),
  changeVisibility: (name, receiptHandle, timeoutMs) =>
    queue().changeVisibility(name, receiptHandle, timeoutMs),
};

export function delivery(): DeliveryPort {
  return kept(delivery, () => new QueuedDelivery(queueOnFirstUse));
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
  return kept(publishers, () => new Publishers(publisherStore(), producerAccess(), publisherQuota()));
}

export function publish(): Publish {
  return kept(
    publish,
    () =>
      new Publish(publisherStore(), delivery(), {
        dedupTtlSeconds: settings.dedupTtlSeconds,
        timeToleranceMs: settings.eventTimeToleranceMs,
        rate: publisherRate(),
      }),
  );
}

/** The address prefixes operators grant producer principals (`npm run grants`). */
export function producerGrants(): ProducerGrantStore {
  return kept(producerGrants, () => new DynamoProducerGrantStore(table()));
}

/** Registration's check of the producer's grants (docs/security.md). */
export function producerAccess(): ProducerAccess {
  return kept(producerAccess, () => new ProducerAccess(producerGrants(), settings.stage));
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
  return kept(endpointBreaker, () => new DynamoEndpointBreakerStore(table()));
}
