/**
 * Publishing while the queue cannot take the fan-out message: the producer gets a 503 with
 * Retry-After, and its retry of the same event is accepted and delivered once the queue is back.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../../scripts/dynamodb-local';
import { queueEnv } from '../../scripts/local-queue';
import { startConsumer } from '../support/consumer';
import { eventAt, freshNode, LOCK_STATE, publish, registerPublisher, subscribe } from './api';
import { startDeliveryHarness } from './harness';

let port: number;
let queue: Awaited<ReturnType<typeof startDeliveryHarness>> | undefined;
const saved = { ...process.env };

beforeAll(async () => {
  port = await freePort();
  Object.assign(process.env, queueEnv(`http://127.0.0.1:${port}`)); // nothing listens there yet
});

afterAll(async () => {
  await queue?.stop();
  queue?.restoreEnv();
  for (const variable of Object.keys(queueEnv(''))) {
    if (saved[variable] === undefined) delete process.env[variable];
    else process.env[variable] = saved[variable];
  }
});

it('answers 503 with Retry-After, and accepts and delivers the repeat once the queue is back', async () => {
  const address = `${freshNode()}${LOCK_STATE}`;
  const publisherId = await registerPublisher(address);
  const consumer = await startConsumer();
  try {
    await subscribe(address, consumer.url);
    const event = eventAt(address, LOCK_STATE, 'HOLDOVER');

    const refused = await publish(publisherId, event);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);

    queue = await startDeliveryHarness({ port });
    const retried = await publish(publisherId, event);
    expect(retried.status).toBe(202);
    const [delivered] = await consumer.waitFor(1);
    expect(delivered?.body).toEqual(event);
    expect((await publish(publisherId, event)).status).toBe(200); // now a repeat
  } finally {
    await consumer.close();
  }
});
