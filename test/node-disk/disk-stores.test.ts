/**
 * What the node's disk stores promise beyond the ports' contract (test/support/port-contract.ts):
 * everything survives a restart, each region transaction is one commit, and what expires is swept.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { DiskDeadLetterStore } from '../../agent/serve/disk/dead-letter-store';
import { DiskDeliveryCursors } from '../../agent/serve/disk/delivery-cursors';
import { Journal } from '../../agent/serve/disk/journal';
import { DiskPublisherStore } from '../../agent/serve/disk/publisher-store';
import { DiskStoreHealth } from '../../agent/serve/disk/store-health';
import { DiskSubscriptionStore } from '../../agent/serve/disk/subscription-store';
import { possiblePublisherAddresses, validateEvent } from '../../lib/domain/event';
import { publisherIdFor, subscriptionIdFor } from '../../lib/domain/ids';
import type { DeadLetterRecord, EventToAccept, Subscription } from '../../lib/domain/model';
import { newSigningSecret } from '../../lib/domain/signing-secret';
import { lockStateEvent } from '../support/fixtures';
import { testSecretBox } from '../support/port-contract';

const NODE = '/cluster/site/node';
const ADDRESS = `${NODE}/sync/ptp-status/lock-state`;
const OWNER = 'consumer';
const box = testSecretBox();

const dirs: string[] = [];
const journals: Journal[] = [];
function open(dir = mkdtempSync(join(tmpdir(), 'disk-stores-'))) {
  if (!dirs.includes(dir)) dirs.push(dir);
  const journal = Journal.open(dir);
  journals.push(journal);
  return {
    dir,
    journal,
    subscriptions: new DiskSubscriptionStore(journal, box),
    publishers: new DiskPublisherStore(journal),
    cursors: new DiskDeliveryCursors(journal),
    deadLetters: new DiskDeadLetterStore(journal),
  };
}
afterEach(() => {
  for (const journal of journals.splice(0)) journal.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function subscription(endpoint = randomUUID()): Subscription {
  const endpointUri = `https://consumer.example/${endpoint}`;
  return {
    id: subscriptionIdFor(OWNER, ADDRESS, endpointUri),
    resourceAddress: ADDRESS,
    endpointUri,
    owner: OWNER,
    createdAt: new Date().toISOString(),
  };
}

function toAccept(): EventToAccept {
  const { event, timeKey } = validateEvent(lockStateEvent({ node: NODE }));
  return {
    publisherId: publisherIdFor(ADDRESS),
    event,
    timeKey,
    acceptedAt: new Date().toISOString(),
    publisherAddresses: possiblePublisherAddresses(event.data.values, event.source),
  };
}

function deadLetter(s: Subscription, deadLetteredAt: string): DeadLetterRecord {
  return {
    subscriptionId: s.id,
    subscriptionCreatedAt: s.createdAt,
    resourceAddress: ADDRESS,
    publisherId: publisherIdFor(ADDRESS),
    event: validateEvent(lockStateEvent({ node: NODE })).event,
    acceptedAt: deadLetteredAt,
    reason: 'HTTP 500',
    attempts: 3,
    deadLetteredAt,
  };
}

/** The commits in the log since the last compaction. */
function logLines(dir: string): number {
  return readFileSync(join(dir, 'journal.log'), 'utf8').split('\n').length - 1;
}

describe('the node’s disk stores', () => {
  it('hold everything across a restart', async () => {
    const before = open();
    const publisher = {
      id: publisherIdFor(ADDRESS),
      resourceAddress: ADDRESS,
      endpointUri: undefined,
      createdAt: 'x',
    };
    await before.publishers.createPublisher(publisher);
    const e = toAccept();
    await before.publishers.acceptEvent(e);
    const secret = newSigningSecret();
    const s = subscription();
    await before.subscriptions.createSubscription({ ...s, signing: { current: secret } });
    await before.deadLetters.recordDeadLetter(deadLetter(s, new Date().toISOString()));
    before.journal.close();

    const after = open(before.dir);
    expect(await after.publishers.getPublisher(publisher.id)).toEqual(publisher);
    expect((await after.publishers.getState(publisher.id))?.event).toEqual(e.event);
    expect(await after.publishers.acceptEvent(e)).toEqual({ kind: 'duplicate' });
    expect(await after.subscriptions.getSubscription(s.id, OWNER)).toEqual({
      ...s,
      signing: { current: secret },
    });
    expect((await after.deadLetters.listDeadLetters(s, { limit: 10 })).items).toHaveLength(1);
  });

  it('write what the region writes in one transaction in one commit', async () => {
    const { dir, publishers, subscriptions, deadLetters } = open();
    await publishers.createPublisher({
      id: publisherIdFor(ADDRESS),
      resourceAddress: ADDRESS,
      endpointUri: undefined,
      createdAt: new Date().toISOString(),
    });
    const commits = async (write: () => Promise<unknown>) => {
      const before = logLines(dir);
      await write();
      return logLines(dir) - before;
    };
    const e = toAccept();
    expect(await commits(() => publishers.acceptEvent(e))).toBe(1);
    const s = subscription();
    const initial = { resourceAddress: ADDRESS, event: e.event, timeKey: e.timeKey };
    expect(await commits(() => subscriptions.createSubscription(s, initial))).toBe(1);
    await deadLetters.recordDeadLetter(deadLetter(s, new Date().toISOString()));
    expect(await commits(() => subscriptions.deleteSubscription(s.id, OWNER))).toBe(1);
    for (const made of [subscription(), subscription(), subscription()]) {
      await subscriptions.createSubscription(made);
      await deadLetters.recordDeadLetter(deadLetter(made, new Date().toISOString()));
    }
    expect(await commits(() => subscriptions.retireAllSubscriptions(OWNER))).toBe(1);
    expect((await subscriptions.listSubscriptions(OWNER, undefined, { limit: 10 }))?.items).toEqual([]);
  });

  it('drop the accepted-event records release 0.2.0 kept, and hold the repeat rule across a restart without them', async () => {
    const first = open();
    await first.publishers.createPublisher({
      id: publisherIdFor(ADDRESS),
      resourceAddress: ADDRESS,
      endpointUri: undefined,
      createdAt: new Date().toISOString(),
    });
    const e = toAccept();
    expect(await first.publishers.acceptEvent(e)).toEqual({ kind: 'accepted' });
    // What 0.2.0 wrote beside the state for each accepted event.
    const retired = `event#${e.publisherId}#${e.event.source}#${e.event.id}`;
    first.journal.commit([{ key: retired, value: { expiresAt: Math.floor(Date.now() / 1000) + 3600 } }]);
    first.journal.close();
    const second = open(first.dir);
    expect(second.journal.scan('event#')).toEqual([]);
    expect(await second.publishers.acceptEvent(e)).toEqual({ kind: 'duplicate' });
  });

  it('sweep dead letters after 14 days, and cursors past their expiry', async () => {
    const first = open();
    const s = subscription();
    const old = new Date(Date.now() - 15 * 24 * 3600 * 1000).toISOString();
    await first.deadLetters.recordDeadLetter(deadLetter(s, old));
    await first.deadLetters.recordDeadLetter(deadLetter(s, new Date().toISOString()));
    const now = Date.now();
    const attempt = {
      subscriptionId: s.id,
      resourceAddress: ADDRESS,
      timeKey: 'k',
      eventKey: 'e',
      leaseOwner: 'o',
      now,
      leaseUntil: now,
      delivered: { source: 's', id: 'e', time: 't', deliveredAt: now },
    };
    await first.cursors.acquireDeliveryLeases([
      { ...attempt, expiresAt: Math.floor(now / 1000) - 1 },
      { ...attempt, resourceAddress: `${ADDRESS}/kept`, expiresAt: Math.floor(now / 1000) + 60 },
    ]);
    first.journal.close();
    const second = open(first.dir);
    expect((await second.deadLetters.listDeadLetters(s, { limit: 10 })).items).toHaveLength(1);
    expect(second.journal.scan('cursor#').map(([key]) => key)).toEqual([`cursor#${s.id}#${ADDRESS}/kept`]);
  });

  it('answer the health check while the journal is open, and fail it once closed', async () => {
    const { journal } = open();
    const health = new DiskStoreHealth(journal);
    await expect(health.ping()).resolves.toBeUndefined();
    journal.close();
    await expect(health.ping()).rejects.toThrow(/closed/);
  });
});
