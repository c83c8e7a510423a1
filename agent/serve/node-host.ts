/**
 * The node host: the O-Cloud Notification API of one node, served by its agent (`--serve`), from
 * the service's own code. This is its composition root: the same handlers, rules and delivery as
 * the region (lib/services.ts wires them once), over the node's adapters: the stores on the node's
 * disk (agent/serve/disk), the queues in this process (node-queue.ts), the node's scope, and the
 * outbox to the region for every event accepted here. docs/node-api.md describes it.
 *
 * Load it only after `readSettingsFrom(nodeSettings(…))` (node-settings.ts): lib/services.ts reads
 * the settings every function shares when it is loaded.
 */
import { join } from 'node:path';
import { endpointTlsConfig } from '../../lib/config';
import { NodeScope } from '../../lib/domain/node-scope';
import type { AcceptedEvent } from '../../lib/domain/ports';
import { DEFAULT_CONSUMERS, pollQueues } from '../../lib/queue/event-source';
import { localDataKey } from '../../lib/secrets/local-data-key';
import { AesGcmSecretBox } from '../../lib/secrets/secret-box';
import { publish, publishers, queue, serveWith } from '../../lib/services';
import { fileTlsReader } from '../../lib/tls/client-tls';
import type { QueuedEvent } from '../outbox';
import { DEFAULT_ROUTE, QUEUE_FUNCTIONS, ROTATE_WEBHOOK_KEYS, ROUTE_HANDLERS } from './api-routes';
import { DiskCounterStore } from './disk/counter-store';
import { DiskDeadLetterStore } from './disk/dead-letter-store';
import { DiskDeliveryCursors } from './disk/delivery-cursors';
import { DiskEndpointBreakerStore } from './disk/endpoint-breaker-store';
import { Journal } from './disk/journal';
import { DiskPublisherStore } from './disk/publisher-store';
import { DiskStoreHealth } from './disk/store-health';
import { DiskSubscriptionStore } from './disk/subscription-store';
import { DiskWebhookKeyStore } from './disk/webhook-key-store';
import { invocationContext, startHttpServer } from './http-server';
import { type NodeStatus, nodeHealth } from './node-health';
import { NodeQueue } from './node-queue';
import { signingKeyFile } from './node-settings';

export interface NodeHostOptions {
  readonly node: string;
  readonly stateDir: string;
  /** The node's store, under the state directory: one per node, as the outbox is one per node and region. */
  readonly storeDir: string;
  readonly listen: { readonly host: string; readonly port: number };
  /**
   * Every event another producer publishes on the node, once accepted, for the region (the
   * agent's outbox). The agent's own (`NodeHost.publish`) are in the outbox already.
   */
  readonly forward: (event: QueuedEvent) => void;
  /** What the agent follows and how the region answers, for GET /health. */
  readonly status: () => NodeStatus;
  readonly log: (line: string) => void;
}

export interface NodeHost {
  /** The API's origin, e.g. http://127.0.0.1:9043. */
  readonly url: string;
  /** Registers one of the agent's own publishers on the node (once; again is harmless). */
  register(address: string): Promise<string>;
  /**
   * Publishes one of the agent's own events on the node, as a producer's POST …/events would,
   * except that it is not forwarded: the agent puts its own events in the outbox as it sees them,
   * so that the region's copy waits for neither the node's disk nor its queue.
   */
  publish(item: QueuedEvent): Promise<void>;
  stop(): Promise<void>;
}

/** One day: the `v1a` keys rotate as the region's daily schedule rotates them. */
const KEY_ROTATION_CHECK_MS = 24 * 3600 * 1000;

export async function startNodeHost(options: NodeHostOptions): Promise<NodeHost> {
  const journal = Journal.open(join(options.stateDir, options.storeDir));
  const nodeQueue = new NodeQueue(journal);
  /** The agent's own events being published on the node (`publish`): in the outbox already. */
  const agentsOwn = new Set<string>();
  const ownKey = (address: string, event: Pick<QueuedEvent['event'], 'source' | 'id'>) =>
    `${address}\n${event.source}\n${event.id}`;
  serveWith({
    subscriptionStore: (box) => new DiskSubscriptionStore(journal, box),
    secretBox: () => new AesGcmSecretBox(localDataKey(signingKeyFile(options.stateDir))),
    publisherStore: () => new DiskPublisherStore(journal),
    deliveryCursors: () => new DiskDeliveryCursors(journal),
    deadLetters: () => new DiskDeadLetterStore(journal),
    counters: () => new DiskCounterStore(journal),
    storeHealth: () => new DiskStoreHealth(journal),
    endpointBreaker: () => new DiskEndpointBreakerStore(journal),
    webhookKeyStore: (box) => new DiskWebhookKeyStore(journal, box),
    queue: () => nodeQueue,
    // PEM files (ENDPOINT_CLIENT_CERT_FILE, …), as on the local stage: a node has no Secrets Manager.
    endpointTlsReader: () => {
      const tls = endpointTlsConfig();
      if (tls.source.kind === 'secret')
        throw new Error(
          "ENDPOINT_TLS_SECRET is the region's: a node reads its TLS identity from ENDPOINT_CLIENT_CERT_FILE and ENDPOINT_CLIENT_KEY_FILE",
        );
      return fileTlsReader(tls.source, tls.caFile);
    },
    forwardAccepted: async (accepted: AcceptedEvent) => {
      if (agentsOwn.has(ownKey(accepted.resourceAddress, accepted.event))) return;
      options.forward({ address: accepted.resourceAddress, event: accepted.event });
    },
    scope: new NodeScope(options.node),
  });
  queue(); // the queue is the node's from the start: the poller and the functions share it

  const poller = pollQueues({
    // One invocation at a time per queue would do for a node's few consumers, but a consumer
    // that hangs must not hold up the others: the region's concurrency, here too.
    consumers: DEFAULT_CONSUMERS,
    store: nodeQueue,
    invoke: (functionKey, event) => {
      const run = QUEUE_FUNCTIONS[functionKey as keyof typeof QUEUE_FUNCTIONS];
      if (!run) throw new Error(`no queue function ${functionKey}`);
      return run(event, invocationContext(`${functionKey}-${event.Records[0]?.messageId ?? ''}`));
    },
    queueArn: (name) => `node:${name}`,
    log: options.log,
  });
  nodeQueue.onChange = () => poller.wake();

  const health = nodeHealth(options.node, options.status, () => nodeQueue.counts());
  const server = await startHttpServer({
    ...options.listen,
    handlerFor: (key) =>
      key === 'GET /health' ? health : key === undefined ? DEFAULT_ROUTE : ROUTE_HANDLERS[key],
    log: options.log,
  });

  const rotateKeys = () =>
    ROTATE_WEBHOOK_KEYS({}, invocationContext('rotate-webhook-keys')).catch((error: unknown) =>
      options.log(`could not rotate the v1a signing keys: ${String(error)}`),
    );
  void rotateKeys();
  const rotation = setInterval(rotateKeys, KEY_ROTATION_CHECK_MS);
  rotation.unref();

  /** The agent's own publishers on the node, by address: registered once (201 or 409 alike). */
  const publisherIds = new Map<string, string>();
  const publisherFor = async (address: string): Promise<string> => {
    const known = publisherIds.get(address);
    if (known) return known;
    const registered = await publishers().register({ ResourceAddress: address });
    const id = registered.kind === 'created' ? registered.publisher.id : registered.existingId;
    publisherIds.set(address, id);
    return id;
  };

  return {
    url: server.url,
    register: publisherFor,
    async publish(item) {
      const key = ownKey(item.address, item.event);
      agentsOwn.add(key);
      try {
        await publish().publish(await publisherFor(item.address), item.event);
      } finally {
        agentsOwn.delete(key);
      }
    },
    async stop() {
      clearInterval(rotation);
      await server.close();
      await poller.stop();
      journal.close();
    },
  };
}
