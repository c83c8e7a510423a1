/**
 * What the agent's package has in place of lib/hosts/region.ts (scripts/build-agent.ts): a node
 * serves with its own adapters (node-host.ts installs them before anything is built), so the
 * region's, and the AWS SDK clients they bring (DynamoDB, SQS, KMS, Secrets Manager: about 26 MB
 * of a process's memory), are left out of it. Reaching one is a bug, said as such.
 */
import type * as region from '../../lib/hosts/region';

const absent = (): never => {
  throw new Error(
    "the node agent has no region adapters: agent/serve/node-host.ts installs the node's first",
  );
};

export const subscriptionStore: typeof region.subscriptionStore = absent;
export const secretBox: typeof region.secretBox = absent;
export const publisherStore: typeof region.publisherStore = absent;
export const deliveryCursors: typeof region.deliveryCursors = absent;
export const deadLetters: typeof region.deadLetters = absent;
export const producerGrants: typeof region.producerGrants = absent;
export const endpointBreaker: typeof region.endpointBreaker = absent;
export const counters: typeof region.counters = absent;
export const storeHealth: typeof region.storeHealth = absent;
export const webhookKeyStore: typeof region.webhookKeyStore = absent;
export const queue: typeof region.queue = absent;
export const endpointTlsReader: typeof region.endpointTlsReader = absent;
