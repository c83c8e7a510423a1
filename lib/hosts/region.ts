/**
 * The region's adapters: the one DynamoDB table, SQS, KMS. What lib/services.ts wires the domain to
 * in every function, unless a host of its own is installed (a node's: agent/serve/node-host.ts).
 * Each piece is built on first use and kept for the process, so a function builds only what its
 * handler reaches and reads only its own settings.
 */
import { queueConfig, signingConfig } from '../config';
import type { QueuePort } from '../queue/queue-port';
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
import { DynamoPublisherStore } from '../store/publisher-store';
import { DynamoWrappedKeyStore } from '../store/signing-key-store';
import { DynamoSubscriptionStore } from '../store/subscription-store';
import { DynamoWebhookKeyStore } from '../store/webhook-key-store';

export function regionAdapters(tableName: string): HostAdapters {
  let table: DynamoTable | undefined;
  const theTable = () => {
    table ??= new DynamoTable(documentClient(), tableName);
    return table;
  };
  let box: AesGcmSecretBox | undefined;
  // Encrypts signing secrets: the data key is read from a file locally, unwrapped by KMS when deployed.
  const secretBox = () => {
    if (!box) {
      const key = signingConfig().key;
      box = new AesGcmSecretBox(
        key.kind === 'file'
          ? localDataKey(key.path)
          : kmsDataKey(awsKms(), key.keyId, new DynamoWrappedKeyStore(theTable())),
      );
    }
    return box;
  };
  return {
    subscriptionStore: () => new DynamoSubscriptionStore(theTable()),
    signingSubscriptionStore: () => new DynamoSubscriptionStore(theTable(), secretBox()),
    publisherStore: () => new DynamoPublisherStore(theTable()),
    deliveryCursors: () => new DynamoDeliveryCursors(theTable()),
    deadLetters: () => new DynamoDeadLetterStore(theTable()),
    counters: () => new DynamoCounterStore(theTable()),
    storeHealth: () => theTable(),
    webhookKeyStore: (sealed) =>
      sealed ? new DynamoWebhookKeyStore(theTable(), secretBox()) : new DynamoWebhookKeyStore(theTable()),
    // SQS, deployed and locally (`npm start` and the tests run a local queue that speaks its protocol).
    queue: (): QueuePort => {
      const urls = queueConfig();
      return new SqsQueue({
        'fan-out': urls.fanOutUrl,
        delivery: urls.deliveryUrl,
        'dead-letter': urls.deadLetterUrl,
        cleanup: urls.cleanupUrl,
      });
    },
  };
}
