/**
 * What the benchmarks drive in-process, bundled by esbuild as the functions are (no TypeScript
 * runner is installed): the functions' handlers and the composition root they share, so that one
 * bundle holds one set of the product's SDK clients.
 */
export { handler as createPublisher } from '../functions/http/create-publisher';
export { handler as createSubscription } from '../functions/http/create-subscription';
export { handler as publishEvent } from '../functions/http/publish-event';
export { handler as deliver } from '../functions/queue/deliver';
export { handler as fanOut } from '../functions/queue/fan-out';
export { postJson } from '../lib/delivery/http-sender';
export { createNetworkPolicy } from '../lib/delivery/network-policy';
export { publish, publishers, subscriptionStore } from '../lib/services';
