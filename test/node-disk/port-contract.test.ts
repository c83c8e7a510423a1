/** The store ports' contract (test/support/port-contract.ts) kept by the node's disk adapters. */

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { DiskCounterStore } from '../../agent/serve/disk/counter-store';
import { DiskDeadLetterStore } from '../../agent/serve/disk/dead-letter-store';
import { DiskDeliveryCursors } from '../../agent/serve/disk/delivery-cursors';
import { DiskEndpointBreakerStore } from '../../agent/serve/disk/endpoint-breaker-store';
import { Journal } from '../../agent/serve/disk/journal';
import { DiskPublisherStore } from '../../agent/serve/disk/publisher-store';
import { DiskStoreHealth } from '../../agent/serve/disk/store-health';
import { DiskSubscriptionStore } from '../../agent/serve/disk/subscription-store';
import { DiskWebhookKeyStore } from '../../agent/serve/disk/webhook-key-store';
import { portContract, testSecretBox } from '../support/port-contract';

const opened: Journal[] = [];
afterAll(() => {
  for (const journal of opened) journal.close();
});

portContract('on the node’s disk', () => {
  // A journal of its own per test.
  const dir = mkdtempSync(join(tmpdir(), 'port-contract-disk-'));
  const journal = Journal.open(dir);
  opened.push(journal);
  const box = testSecretBox();
  return {
    subscriptions: new DiskSubscriptionStore(journal, box),
    plainSubscriptions: new DiskSubscriptionStore(journal),
    publishers: new DiskPublisherStore(journal),
    cursors: new DiskDeliveryCursors(journal),
    deadLetters: new DiskDeadLetterStore(journal),
    counters: new DiskCounterStore(journal),
    breaker: new DiskEndpointBreakerStore(journal),
    health: new DiskStoreHealth(journal),
    webhookKeys: new DiskWebhookKeyStore(journal, box),
    async storedText() {
      return ['snapshot.json', 'journal.log'].map((file) => readFileSync(join(dir, file), 'utf8')).join('\n');
    },
  };
});
