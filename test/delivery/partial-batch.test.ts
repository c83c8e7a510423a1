/**
 * The queue-driven handlers report a batch's failed records alone (partial batch responses,
 * through Powertools' batch processor): the queue retries those and deletes the rest. The failures
 * here are passing faults of one record's domain operation (a throttled table), which a real table
 * cannot be made to give one record of a batch and not another: the operation is made to reject.
 * An unreadable record is not a failure of this kind: test/delivery/poison-messages.test.ts.
 */
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as fanOutHandler } from '../../functions/queue/fan-out';
import { handler as removeRetiredHandler } from '../../functions/queue/remove-retired-subscriptions';
import type { FanOutMessage } from '../../lib/delivery/messages';
import { fanOutMessage } from '../../lib/delivery/messages';
import { ServiceUnavailableError } from '../../lib/errors';
import { fanOut, subscriptionStore, subscriptions } from '../../lib/services';
import { type LocalQueue, sqsEvent, startLocalQueue } from '../../scripts/local-queue';
import { lockStateEvent, uniqueCluster } from '../support/fixtures';
import { lambdaContext } from '../support/http-event';

let queue: LocalQueue;
const saved = { ...process.env };
beforeAll(async () => {
  queue = await startLocalQueue({ log: () => undefined });
  Object.assign(process.env, queue.env); // read once, at the first enqueue
});
afterAll(async () => {
  await queue.stop();
  process.env = saved;
});
afterEach(() => {
  vi.restoreAllMocks();
});

const throttled = () => new ServiceUnavailableError('the table is throttling requests');

/** A fan-out message of an event no one subscribes to. */
const lonelyFanOut = () =>
  JSON.stringify(
    fanOutMessage({
      publisherId: randomUUID(),
      resourceAddress: `/${uniqueCluster()}/site-1/node-1/sync/ptp-status/lock-state`,
      event: lockStateEvent({ node: `/${uniqueCluster()}/site-1/node-1` }) as FanOutMessage['event'],
      acceptedAt: new Date().toISOString(),
    }),
  );

const event = (queueName: string, bodies: string[]) =>
  sqsEvent(
    queueName,
    bodies.map((body) => ({ messageId: randomUUID(), body, receiveCount: 1, sentAt: Date.now() })),
  ) as unknown as SQSEvent;

describe('fanOut', () => {
  it('fans out the good records and reports only the failed one', async () => {
    const node = `/${uniqueCluster()}/site-1/node-1`;
    const resourceAddress = `${node}/sync/ptp-status/lock-state`;
    const subscriptionId = randomUUID();
    await subscriptionStore().createSubscription({
      id: subscriptionId,
      resourceAddress,
      endpointUri: `http://127.0.0.1:9/${subscriptionId}`,
      owner: 'anonymous',
      createdAt: new Date().toISOString(),
    });
    const good = JSON.stringify(
      fanOutMessage({
        publisherId: randomUUID(),
        resourceAddress,
        event: lockStateEvent({ node }) as FanOutMessage['event'],
        acceptedAt: new Date().toISOString(),
      }),
    );
    const failing = lonelyFanOut();
    const run = fanOut().run.bind(fanOut());
    vi.spyOn(fanOut(), 'run').mockImplementation((message, ...rest) =>
      message.publisherId === JSON.parse(failing).publisherId
        ? Promise.reject(throttled())
        : run(message, ...rest),
    );
    const batch = event('fan-out', [good, failing]);
    const response = await fanOutHandler(batch, lambdaContext());
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: batch.Records[1]?.messageId }] });
    const enqueued = queue.messages('delivery').filter((m) => m.body.includes(subscriptionId));
    expect(enqueued).toHaveLength(1);
  });

  it('has the queue bring a failed record back after a short back-off, not its visibility time-out', async () => {
    // The poller plays the fan-out queue's event source with its visibility time-out from
    // lib/queue/queues.json (6 minutes); the record fails on its first receive (and is let go on
    // its second, which is all this test is about).
    const receives: number[] = [];
    queue.startPolling(async (functionKey, sqs) => {
      const counts = sqs.Records.map((record) => Number(record.attributes.ApproximateReceiveCount));
      if (functionKey !== 'fanOut' || receives.push(...counts) > 1) return { batchItemFailures: [] };
      return fanOutHandler(sqs as unknown as SQSEvent, lambdaContext());
    });
    vi.spyOn(fanOut(), 'run').mockRejectedValueOnce(throttled());
    queue.send('fan-out', [{ body: lonelyFanOut() }]);
    await vi.waitFor(() => expect(receives).toEqual([1, 2]), { timeout: 10_000, interval: 50 });
    await vi.waitFor(() => expect(queue.idle()).toBe(true));
  });

  it('reports every record of a batch that failed whole, as an answer rather than an error', async () => {
    vi.spyOn(fanOut(), 'run').mockRejectedValue(throttled());
    const batch = event('fan-out', [lonelyFanOut(), lonelyFanOut()]);
    const response = await fanOutHandler(batch, lambdaContext());
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(
      batch.Records.map((r) => r.messageId),
    );
  });
});

describe('removeRetiredSubscriptions', () => {
  it('reports only the record it could not run', async () => {
    const job = {
      kind: 'remove-retired',
      owner: `nobody-${randomUUID()}`,
      fromGeneration: 0,
      toGeneration: 1,
    };
    const failing = { ...job, owner: `nobody-${randomUUID()}` };
    const removeRetired = subscriptions().removeRetired.bind(subscriptions());
    vi.spyOn(subscriptions(), 'removeRetired').mockImplementation((retired, ...rest) =>
      retired.owner === failing.owner ? Promise.reject(throttled()) : removeRetired(retired, ...rest),
    );
    const batch = event('cleanup', [JSON.stringify(failing), JSON.stringify(job)]);
    const response = await removeRetiredHandler(batch, lambdaContext());
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: batch.Records[0]?.messageId }] });
  });
});
