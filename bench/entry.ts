/**
 * What the benchmarks drive in-process, bundled by esbuild as the functions are (no TypeScript
 * runner is installed): the functions' handlers and the composition root they share, so that one
 * bundle holds one set of the product's SDK clients.
 */
export { handler as createPublisher } from '../functions/create-publisher';
export { handler as createSubscription } from '../functions/create-subscription';
export { handler as deliver } from '../functions/deliver';
export { handler as fanOut } from '../functions/fan-out';
export { handler as publishEvent } from '../functions/publish-event';
export { postJson } from '../lib/delivery/http-sender';
export { createNetworkPolicy } from '../lib/delivery/network-policy';
export { publish, publishers, subscriptionStore } from '../lib/services';
