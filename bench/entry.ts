/** What bench/fanout.mjs drives, bundled by esbuild (no TypeScript runner is installed). */
export { handler as deliverHandler } from '../functions/deliver';
export { handler as fanOutHandler } from '../functions/fan-out';
export { config, deliveryConfig } from '../lib/config';
export { completedAttempt, cursorAttempt, sharedStoreCalls } from '../lib/delivery/deliverer';
export { postJson } from '../lib/delivery/http-sender';
export { createNetworkPolicy } from '../lib/delivery/network-policy';
export { deliveryStore, publish, publishers, subscriptionStore } from '../lib/services';
