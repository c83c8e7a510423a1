/** The store ports' contract (test/support/port-contract.ts) kept by the DynamoDB adapters. */

import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoCounterStore } from '../../lib/store/counter-store';
import { DynamoDeadLetterStore } from '../../lib/store/dead-letter-store';
import { DynamoDeliveryCursors } from '../../lib/store/delivery-cursors';
import { documentClient } from '../../lib/store/dynamo-client';
import { DynamoTable } from '../../lib/store/dynamo-table';
import { DynamoEndpointBreakerStore } from '../../lib/store/endpoint-breaker-store';
import { DynamoPublisherStore } from '../../lib/store/publisher-store';
import { DynamoSubscriptionStore } from '../../lib/store/subscription-store';
import { DynamoWebhookKeyStore } from '../../lib/store/webhook-key-store';
import { portContract, testSecretBox } from '../support/port-contract';

const tableName = process.env.TABLE_NAME ?? '';
const table = new DynamoTable(documentClient(), tableName);
const box = testSecretBox();

portContract('on DynamoDB', () => ({
  subscriptions: new DynamoSubscriptionStore(table, box),
  plainSubscriptions: new DynamoSubscriptionStore(table),
  publishers: new DynamoPublisherStore(table),
  cursors: new DynamoDeliveryCursors(table),
  deadLetters: new DynamoDeadLetterStore(table),
  counters: new DynamoCounterStore(table),
  breaker: new DynamoEndpointBreakerStore(table),
  health: table,
  webhookKeys: new DynamoWebhookKeyStore(table, box),
  async storedText() {
    const items: unknown[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await documentClient().send(
        new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey }),
      );
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return JSON.stringify(items, (_key, value: unknown) => (value instanceof Set ? [...value] : value));
  },
}));
