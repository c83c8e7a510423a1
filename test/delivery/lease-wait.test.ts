/**
 * An attempt that finds its cursor leased by another attempt sends nothing and waits. That wait
 * must not spend the delivery queue's redrive budget (maxReceiveCount): SQS moves a message received
 * that often to the dead-letter queue as it is, with no reason letter, and the notification is lost
 * to its consumer. Deployed, the budget is 50 receives and a lease is held at most the POST's
 * time-out plus a margin, so it takes a run of slow attempts for one (subscription, address); here a
 * budget of 5 and one POST that hangs for 6 s show the same in seconds.
 */
import { describe, expect, it, vi } from 'vitest';
import { trackConsumers } from '../support/consumer';
import { waitForQueueIdle } from '../support/queue-idle';
import { useQueuedDelivery } from '../support/queued-delivery';
import { eventAt, freshNode, LOCK_STATE, publishAccepted, registerPublisher, subscribe } from './api';

const MAX_RECEIVE_COUNT = 5;
const TIMEOUT_MS = 6000;

const queue = useQueuedDelivery({
  retryWindowSeconds: 600,
  backoffBaseMs: 200,
  backoffMaxMs: 1000,
  timeoutMs: TIMEOUT_MS,
  maxReceiveCount: MAX_RECEIVE_COUNT,
});
const consumer = trackConsumers();

describe('an attempt waiting for another attempt’s lease', () => {
  it('does not spend the redrive budget: the newer event arrives once the lease is free, and nothing is dead-lettered', async () => {
    const address = `${freshNode()}${LOCK_STATE}`;
    const publisherId = await registerPublisher(address);
    // The first POST hangs past the time-out, holding the cursor's lease; every later one is taken.
    const slow = await consumer(['hang', { status: 204 }]);
    await subscribe(address, slow.url);
    const older = eventAt(address, LOCK_STATE, 'FREERUN', new Date(Date.now() - 1000).toISOString());
    await publishAccepted(publisherId, older);
    await slow.waitFor(1);
    const newer = eventAt(address, LOCK_STATE, 'LOCKED');
    await publishAccepted(publisherId, newer);

    // The newer event waits for the hanging attempt (6 s, about one receive a second), then is sent.
    await vi.waitFor(
      () => {
        if (!slow.received.some((n) => (n.body as { id?: string }).id === newer.id))
          throw new Error('the newer event has not arrived');
      },
      { timeout: TIMEOUT_MS + 8000, interval: 100 },
    );
    await waitForQueueIdle();
    const redriven = queue()
      .messages('dead-letter')
      .filter((m) => m.deadLetterSourceQueue === 'delivery');
    expect(redriven).toEqual([]);
    expect(queue().deadLetters()).toEqual([]);
  }, 30_000);
});
