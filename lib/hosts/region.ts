/**
 * The region's adapters: the one DynamoDB table, SQS, KMS. What lib/services.ts wires the domain to
 * in every function, unless a host of its own is installed (a node's: agent/serve/node-host.ts).
 * One function per adapter, each reached only through its accessor in lib/services.ts, so that a
 * function's bundle holds only the adapters its handler uses (test/budgets/bundle-size.test.ts).
 */
import { config, endpointTlsConfig, queueConfig, signingConfig } from '../config';
import { SqsQueue } from '../queue/sqs-queue';
import { awsKms, kmsDataKey } from '../secrets/kms-data-key';
import { localDataKey } from '../secrets/local-data-key';
import { AesGcmSecretBox } from '../secrets/secret-box';
import type { HostAdapters } from '../services';
import { DynamoCounterStore } from '../store/counter-store';
import { DynamoDeadLetterStore } from '../store/dead-letter-store';
import { DynamoDeliveryCursors } from '../store/delivery-cursors';
import { documentClient } from '../store/dynamo-client';
import { DynamoTable } from '../store/dynamo-table';
import { DynamoEndpointBreakerStore } from '../store/endpoint-breaker-store';
import { DynamoProducerGrantStore } from '../store/producer-grant-store';
import { DynamoPublisherStore } from '../store/publisher-store';
import { DynamoWrappedKeyStore } from '../store/signing-key-store';
import { DynamoSubscriptionStore } from '../store/subscription-store';
import { DynamoWebhookKeyStore } from '../store/webhook-key-store';
import { fileTlsReader } from '../tls/client-tls';
import { secretTlsReader } from '../tls/secret-tls-reader';

let theTable: DynamoTable | undefined;

/** The one table, built on first use (its name is a setting every function shares, read at init). */
function table(): DynamoTable {
  theTable ??= new DynamoTable(documentClient(), config().tableName);
  return theTable;
}

export const subscriptionStore: HostAdapters['subscriptionStore'] = (box) =>
  new DynamoSubscriptionStore(table(), box);

/** The data key is read from a file locally, unwrapped by KMS when deployed. */
export const secretBox: HostAdapters['secretBox'] = () => {
  const key = signingConfig().key;
  return new AesGcmSecretBox(
    key.kind === 'file'
      ? localDataKey(key.path)
      : kmsDataKey(awsKms(), key.keyId, new DynamoWrappedKeyStore(table())),
  );
};

export const publisherStore: HostAdapters['publisherStore'] = () => new DynamoPublisherStore(table());
export const deliveryCursors: HostAdapters['deliveryCursors'] = () => new DynamoDeliveryCursors(table());
export const deadLetters: HostAdapters['deadLetters'] = () => new DynamoDeadLetterStore(table());
export const producerGrants = () => new DynamoProducerGrantStore(table());
export const endpointBreaker: HostAdapters['endpointBreaker'] = () => new DynamoEndpointBreakerStore(table());
export const counters: HostAdapters['counters'] = () => new DynamoCounterStore(table());
export const storeHealth: HostAdapters['storeHealth'] = () => table();
export const webhookKeyStore: HostAdapters['webhookKeyStore'] = (box) =>
  new DynamoWebhookKeyStore(table(), box);

/** SQS, deployed and locally (`npm start` and the tests run a local queue that speaks its protocol). */
export const queue: HostAdapters['queue'] = () => {
  const urls = queueConfig();
  return new SqsQueue({
    'fan-out': urls.fanOutUrl,
    delivery: urls.deliveryUrl,
    'dead-letter': urls.deadLetterUrl,
    cleanup: urls.cleanupUrl,
  });
};

/** From a Secrets Manager secret when deployed (ENDPOINT_TLS_SECRET), PEM files locally. */
export const endpointTlsReader: HostAdapters['endpointTlsReader'] = () => {
  const tls = endpointTlsConfig();
  return tls.source.kind === 'secret'
    ? secretTlsReader(tls.source.secretId)
    : fileTlsReader(tls.source, tls.caFile);
};
