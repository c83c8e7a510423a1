import { config, deliveryConfig, endpointTlsConfig, signingConfig, webhookKeyConfig } from './config';
import { Deliverer } from './delivery/deliverer';
import { DeliveryBatch } from './delivery/delivery-batch';
import { HttpEndpointGate } from './delivery/endpoint-gate';
import { FailedRecordBackoff } from './delivery/failed-record-backoff';
import { FanOut } from './delivery/fan-out';
import { createNetworkPolicy, type NetworkPolicy } from './delivery/network-policy';
import type { Backoff } from './delivery/retry-policy';
import { ServiceCredentials } from './delivery/sender-credentials';
import type { DeliveryPort } from './domain/ports';
import { Publish } from './domain/publish';
import { Publishers } from './domain/publishers';
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
import { DynamoDeliveryRecords } from './store/delivery-records';
import { DynamoDeliveryStore } from './store/delivery-store';
import { documentClient } from './store/dynamo-client';
import { DynamoTable } from './store/dynamo-table';
import { DynamoPublisherStore } from './store/publisher-store';
import { DynamoRetiredSubscriptions } from './store/retired-subscriptions';
import { DynamoWrappedKeyStore } from './store/signing-key-store';
import { DynamoSigningSecretStore } from './store/signing-secret-store';
import { DynamoStoreStatus } from './store/store-status';
import { DynamoSubscriptionLists } from './store/subscription-lists';
import { DynamoSubscribeStore, DynamoSubscriptionStore } from './store/subscription-store';
import { DynamoWebhookKeyStore } from './store/webhook-key-store';
import { ClientTlsSource, fileTlsReader } from './tls/client-tls';
import { secretTlsReader } from './tls/secret-tls-reader';

/**
 * The composition root: each piece is built once per process on first use, so a function's
 * bundle holds only what its handler reaches. The `@__PURE__` marks are what make that true:
 * without them esbuild must keep every `once(...)` call (it cannot know `once` has no side
 * effects), and with it every class those closures name, in every function's bundle.
 */
function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= build();
    return value;
  };
}

const userAgent = /* @__PURE__ */ once(() => `${config().serviceName}/${config().serviceVersion}`);

const table = /* @__PURE__ */ once(() => new DynamoTable(documentClient(), config().tableName));

export const subscriptionStore = /* @__PURE__ */ once(() => new DynamoSubscriptionStore(table()));

/** Encrypts signing secrets: the data key is read from a file locally, unwrapped by KMS when deployed. */
export const secretBox = /* @__PURE__ */ once(() => {
  const key = signingConfig().key;
  return new AesGcmSecretBox(
    key.kind === 'file'
      ? localDataKey(key.path)
      : kmsDataKey(awsKms(), key.keyId, new DynamoWrappedKeyStore(table())),
  );
});

/** The subscription store of the functions that sign or keep secrets: it reads and writes them. */
export const signingSubscriptionStore = /* @__PURE__ */ once(
  () => new DynamoSubscriptionStore(table(), secretBox()),
);

export const publisherStore = /* @__PURE__ */ once(() => new DynamoPublisherStore(table()));

export const deliveryStore = /* @__PURE__ */ once(
  () => new DynamoDeliveryStore(table(), signingSubscriptionStore()),
);

export const storeStatus = /* @__PURE__ */ once(() => new DynamoStoreStatus(table()));

/** The `v1a` keys as the keys route lists them: public halves only, so it needs no KMS. */
export const publishedWebhookKeys = /* @__PURE__ */ once(
  () => new WebhookKeys(new DynamoWebhookKeyStore(table()), webhookKeyConfig()),
);

/** The `v1a` keys with their private halves: for the functions that sign, and the daily rotation. */
export const signingWebhookKeys = /* @__PURE__ */ once(
  () => new WebhookKeys(new DynamoWebhookKeyStore(table(), secretBox()), webhookKeyConfig()),
);

/** The TLS client identity and `v1a` key of the functions that send to consumers. */
const serviceCredentials = /* @__PURE__ */ once(() => {
  const settings = endpointTlsConfig();
  const read =
    settings.source.kind === 'secret'
      ? secretTlsReader(settings.source.secretId)
      : fileTlsReader(settings.source, settings.caFile);
  return new ServiceCredentials(
    new ClientTlsSource(read, settings.refreshSeconds * 1000),
    signingWebhookKeys(),
  );
});

export const networkPolicy = /* @__PURE__ */ once<NetworkPolicy>(() =>
  createNetworkPolicy(config().networkPolicy),
);

/** SQS, deployed and locally (`npm start` and the tests run a local queue that speaks its protocol). */
export const queue = /* @__PURE__ */ once<QueuePort>(() => {
  const settings = deliveryConfig().queue;
  return new SqsQueue({
    'fan-out': settings.fanOutUrl,
    delivery: settings.deliveryUrl,
    'dead-letter': settings.deadLetterUrl,
    cleanup: settings.cleanupUrl,
  });
});

// The queue is resolved at the first send, so that a route which never enqueues (a subscribe to an
// address without states) does not need the queue settings.
const queueOnFirstUse: QueuePort = {
  send: (name, messages) => queue().send(name, messages),
  changeVisibility: (name, receiptHandle, timeoutMs) =>
    queue().changeVisibility(name, receiptHandle, timeoutMs),
};

export const delivery = /* @__PURE__ */ once<DeliveryPort>(() => new QueuedDelivery(queueOnFirstUse));

export const fanOut = /* @__PURE__ */ once(() => new FanOut(deliveryStore(), queue()));

/** The back-off between a notification's attempts (about 1 s, 2 s, 4 s … at most 5 min). */
function deliveryBackoff(): Backoff {
  const { backoffBaseMs, backoffMaxMs } = deliveryConfig();
  return { baseMs: backoffBaseMs, maxMs: backoffMaxMs };
}

/** A fan-out that failed is run again after a notification's back-off, not the queue's 6 minutes. */
export const fanOutBackoff = /* @__PURE__ */ once(
  () => new FailedRecordBackoff(queue(), 'fan-out', deliveryBackoff()),
);

export const deliveryBatch = /* @__PURE__ */ once(() => {
  const deliverer = new Deliverer(deliveryStore(), networkPolicy(), {
    timeoutMs: config().deliveryTimeoutMs,
    userAgent: userAgent(),
    retryWindowMs: deliveryConfig().retryWindowSeconds * 1000,
    backoff: deliveryBackoff(),
    credentials: serviceCredentials(),
  });
  const storeFailure = new FailedRecordBackoff(queue(), 'delivery', deliveryBackoff());
  return new DeliveryBatch(deliverer, queue(), deliveryStore(), storeFailure);
});

export const subscriptions = /* @__PURE__ */ once(
  () =>
    new Subscriptions(
      subscriptionStore(),
      new DynamoSubscriptionLists(table()),
      new DynamoRetiredSubscriptions(table()),
      new QueuedRemoval(queueOnFirstUse),
    ),
);

/** A subscription's delivery status and dead letters, for its owner. */
export const subscriptionDeliveries = /* @__PURE__ */ once(
  () => new SubscriptionDeliveries(subscriptionStore(), new DynamoDeliveryRecords(table()), delivery()),
);

export const subscribe = /* @__PURE__ */ once(
  () =>
    new Subscribe(
      new DynamoSubscribeStore(table(), secretBox()),
      new HttpEndpointGate(networkPolicy(), config().sanityCheckTimeoutMs, userAgent(), serviceCredentials()),
      delivery(),
    ),
);

export const rotateSecret = /* @__PURE__ */ once(
  () =>
    new RotateSecret(
      new DynamoSigningSecretStore(table(), secretBox()),
      signingConfig().rotationGraceSeconds,
    ),
);

export const publishers = /* @__PURE__ */ once(() => new Publishers(publisherStore()));

export const publish = /* @__PURE__ */ once(
  () =>
    new Publish(publisherStore(), delivery(), {
      dedupTtlSeconds: config().dedupTtlSeconds,
      timeToleranceMs: config().eventTimeToleranceMs,
    }),
);
