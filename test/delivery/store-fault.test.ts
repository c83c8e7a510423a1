/**
 * A delivery attempt the store kept from running (DynamoDB unreachable) comes back after the
 * back-off of its attempt, as a failed POST does, not after the delivery queue's visibility
 * time-out (3 minutes). The deliver handler is loaded afresh against a DynamoDB endpoint where
 * nothing listens, and fed by the local queue's poller.
 */
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { NotificationEvent } from '../../lib/domain/event';
import { freePort } from '../../scripts/dynamodb-local';
import { type LocalQueue, startLocalQueue } from '../../scripts/local-queue';
import { lambdaContext } from '../support/http-event';
import { queuedNotification } from '../support/notifications';
import { eventAt, LOCK_STATE } from './api';

let queue: LocalQueue;
const saved = { ...process.env };
beforeAll(async () => {
  queue = await startLocalQueue({ log: () => undefined });
  const unreachable = `http://127.0.0.1:${await freePort()}`;
  Object.assign(process.env, queue.env, { AWS_ENDPOINT_URL_DYNAMODB: unreachable });
  vi.resetModules();
});
afterAll(async () => {
  await queue.stop();
  process.env = saved;
});

it('brings a notification whose attempt the store failed back after a short back-off', async () => {
  const { handler } = await import('../../functions/queue/deliver');
  const resourceAddress = `/c-${randomUUID().slice(0, 8)}/s/n${LOCK_STATE}`;
  const subscription = {
    id: randomUUID(),
    resourceAddress,
    endpointUri: 'http://127.0.0.1:9/events',
    owner: 'anonymous',
    createdAt: new Date().toISOString(),
  };
  const event = eventAt(resourceAddress, LOCK_STATE, 'HOLDOVER') as NotificationEvent;
  const message = queuedNotification(
    subscription,
    { publisherId: randomUUID(), resourceAddress, event, acceptedAt: new Date().toISOString() },
    new Date(),
  );
  const receives: number[] = [];
  // Its first receive fails; its second is let go (this test is about when it comes).
  queue.startPolling(async (functionKey, sqs) => {
    const counts = sqs.Records.map((record) => Number(record.attributes.ApproximateReceiveCount));
    if (functionKey !== 'deliver' || receives.push(...counts) > 1) return { batchItemFailures: [] };
    return handler(sqs as unknown as SQSEvent, lambdaContext());
  });
  queue.send('delivery', [{ body: JSON.stringify(message) }]);
  await vi.waitFor(() => expect(receives).toEqual([1, 2]), { timeout: 15_000, interval: 50 });
  await vi.waitFor(() => expect(queue.idle()).toBe(true));
  expect(queue.deadLetters()).toEqual([]);
});
