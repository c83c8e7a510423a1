import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as createSubscription } from '../../functions/http/create-subscription';
import { publisherIdFor, subscriptionIdFor } from '../../lib/domain/ids';
import type { Subscription } from '../../lib/domain/model';
import { DynamoCounterStore } from '../../lib/store/counter-store';
import { documentClient } from '../../lib/store/dynamo-client';
import { DynamoTable } from '../../lib/store/dynamo-table';
import { DynamoPublisherStore } from '../../lib/store/publisher-store';
import { DynamoSubscriptionStore } from '../../lib/store/subscription-store';
import { uniqueCluster } from '../support/fixtures';
import { httpApiEvent, invoke } from '../support/http-event';
import { SINK } from '../support/sink';

const tableName = process.env.TABLE_NAME ?? '';
const table = new DynamoTable(documentClient(), tableName);
const subscriptions = new DynamoSubscriptionStore(table);
const publisherStore = new DynamoPublisherStore(table);
const counters = new DynamoCounterStore(table);

/** Items whose key is (`<prefix>…`, `sk`), counted the slow way: a scan. */
async function countItems(prefix: string, sk: string): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'begins_with(pk, :prefix) AND sk = :sk',
        ExpressionAttributeValues: { ':prefix': prefix, ':sk': sk },
        ExclusiveStartKey: startKey,
      }),
    );
    count += page.Items?.length ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}

/** Runs `tasks` with at most `width` in flight at once. */
async function pool<T>(tasks: (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const index = next++;
        const task = tasks[index];
        if (task) results[index] = await task();
      }
    }),
  );
  return results;
}

describe('race safety and exact counters', () => {
  it('creates exactly one subscription from 50 concurrent identical requests; the rest are 409s naming it', async () => {
    const cluster = uniqueCluster();
    const address = `/${cluster}/site-1/node-1/sync/ptp-status/lock-state`;
    const created = await publisherStore.createPublisher({
      id: publisherIdFor(address),
      resourceAddress: address,
      endpointUri: undefined,
      createdAt: new Date().toISOString(),
    });
    expect(created).toBe('created');
    const before = (await counters.counts()).subscriptions;
    const body = {
      ResourceAddress: `/${cluster}/site-1/node-1/sync`,
      EndpointUri: `${SINK}/events`,
    };

    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        invoke(createSubscription, httpApiEvent({ method: 'POST', path: '/subscriptions', body })),
      ),
    );

    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    const winner = responses.find((r) => r.status === 201);
    const locations = new Set(responses.filter((r) => r.status === 409).map((r) => r.headers.location));
    expect([...locations]).toEqual([winner?.headers.location]);
    expect((await counters.counts()).subscriptions).toBe(before + 1);
    const listed = await subscriptions.listSubscriptions('anonymous', `/${cluster}/site-1/node-1/sync`, {
      limit: 1000,
    });
    expect(listed?.items).toHaveLength(1);
  });

  it('keeps the counters equal to the real number of items after 1,000 random concurrent creates and deletes', async () => {
    const cluster = uniqueCluster();
    const owner = 'counter-test';
    const before = await counters.counts();
    const live: Subscription[] = [];
    const publishers: string[] = [];
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };

    const tasks = Array.from({ length: 1000 }, (_, i) => async () => {
      const roll = random();
      if (roll < 0.1) {
        const resourceAddress = `/${cluster}/site-${i % 3}/node-${i}/sync`;
        const id = publisherIdFor(resourceAddress);
        const created = await publisherStore.createPublisher({
          id,
          resourceAddress,
          endpointUri: undefined,
          createdAt: new Date().toISOString(),
        });
        if (created === 'created') publishers.push(id);
      } else if (roll < 0.15 && publishers.length > 0) {
        const id = publishers.splice(Math.floor(random() * publishers.length), 1)[0];
        if (id) await publisherStore.deletePublisher(id, 'anonymous', false);
      } else if (roll < 0.6 || live.length === 0) {
        // Some creates repeat an existing (address, endpoint) pair and must not count twice.
        const endpoint = `${SINK}/${Math.floor(random() * 300)}`;
        const resourceAddress = `/${cluster}/site-${Math.floor(random() * 3)}`;
        const subscription: Subscription = {
          id: subscriptionIdFor(owner, resourceAddress, endpoint),
          resourceAddress,
          endpointUri: endpoint,
          owner,
          createdAt: new Date().toISOString(),
        };
        if (await subscriptions.createSubscription(subscription)) live.push(subscription);
      } else {
        // Deletes race: the same subscription may be deleted twice at once; only one may count.
        const victim = live[Math.floor(random() * live.length)];
        if (victim && (await subscriptions.deleteSubscription(victim.id, owner))) {
          live.splice(live.indexOf(victim), 1);
        }
      }
    });
    await pool(tasks, 24);

    const counts = await counters.counts();
    expect(counts.subscriptions).toBe(await countItems('SUB#', 'SUB'));
    expect(counts.subscriptions - before.subscriptions).toBe(live.length);
    expect((await subscriptions.listSubscriptions(owner, undefined, { limit: 1000 }))?.items).toHaveLength(
      live.length,
    );
    expect(counts.publishers).toBe(await countItems('PUB#', 'PUB'));
    expect(counts.publishers).toBe(await countItems('PUB#', 'STATE'));
    expect(counts.publishers - before.publishers).toBe(publishers.length);

    // Delete-all retires them all in one write: the counters drop at once, the items go after.
    const retired = await subscriptions.retireAllSubscriptions(owner);
    expect(retired).toMatchObject({ owner, fromGeneration: 0, toGeneration: 1 });
    expect((await counters.counts()).subscriptions).toBe(before.subscriptions);
    expect((await subscriptions.listSubscriptions(owner, undefined, { limit: 1000 }))?.items).toEqual([]);
    if (retired) expect(await subscriptions.removeRetired(retired, () => false)).toBeUndefined();
    expect(await countItems('SUB#', 'SUB')).toBe(before.subscriptions);
    expect((await counters.counts()).subscriptions).toBe(before.subscriptions);
  }, 120_000);
});
