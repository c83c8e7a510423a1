import { afterAll, beforeAll } from 'vitest';
import { type HarnessOptions, startDeliveryHarness } from '../delivery/harness';

/**
 * Gives the calling test file queued delivery as `npm start` has it: the local queue, its poller
 * and the real fan-out and deliver handlers, in this process. Call it at the top level of a test
 * file (or of a module it imports) before anything publishes.
 */
export function useQueuedDelivery(options: HarnessOptions = {}) {
  let harness: Awaited<ReturnType<typeof startDeliveryHarness>> | undefined;
  beforeAll(async () => {
    harness = await startDeliveryHarness(options);
  });
  afterAll(async () => {
    await harness?.stop();
    harness?.restoreEnv();
  });
  return () => {
    if (!harness) throw new Error('queued delivery is not running yet');
    return harness;
  };
}
