/**
 * A node-agent simulator: registers publishers for 2 clusters × 2 sites × 3 nodes, subscribes the
 * sample consumer (`npm run consumer`) to one cluster, and plays realistic PTP/GNSS transitions of
 * the contract's catalogue — GNSS loss, LOCKED → HOLDOVER → FREERUN and back, clock class
 * 6 → 7 → 248 → 6 — then stops by itself. Its events are the node agent's own (agent/events.ts):
 * values as strings, as O-RAN and Red Hat's sdk-go write them (`"LOCKED"`, `"-3"`).
 *
 * It subscribes with the sample consumer's secret (.data/consumer-secret, or SIGNING_SECRET), and
 * ends by asking the consumer how many notifications it verified: none is a failure (exit 1).
 *
 * Env: PORT and CONSUMER_PORT as for `npm start` and `npm run consumer` (3000, 9090); STEPS
 * (default 18: every node plays the whole story, recovery included), INTERVAL_MS (default 1500).
 */
import { buildEvent, type Resource, type ResourceState, resourceAddress } from '../agent/events';
import { BASE_PATH } from '../lib/http/base-path';
import { consumerSecret } from './consumer';

const API = `http://127.0.0.1:${process.env.PORT || 3000}${BASE_PATH}`;
const CONSUMER_URL = `http://127.0.0.1:${process.env.CONSUMER_PORT || 9090}/events`;
const INTERVAL_MS = Number(process.env.INTERVAL_MS || 1500);

const CLUSTERS = ['east-edge-1', 'west-edge-2'];
const SITES = ['site-1', 'site-2'];
const NODES = ['node-1', 'node-2', 'node-3'];

/** A node's state: [gnss, lock, clock class, overall sync state, offset ns]. */
type State = [string, string, number, string, number];
/** One node losing GNSS and recovering. */
const STORY: State[] = [
  ['SYNCHRONIZED', 'LOCKED', 6, 'LOCKED', 12],
  ['ANTENNA-DISCONNECTED', 'HOLDOVER', 7, 'HOLDOVER', 180],
  ['ANTENNA-DISCONNECTED', 'HOLDOVER', 7, 'HOLDOVER', 900],
  ['FAILURE-NOFIX', 'FREERUN', 248, 'FREERUN', 4200],
  ['ACQUIRING-SYNC', 'FREERUN', 248, 'FREERUN', 2600],
  ['SYNCHRONIZED', 'LOCKED', 6, 'LOCKED', 25],
];
/** A node moves on every third tick: three ticks per state play every node's story to the end. */
const STEPS = Number(process.env.STEPS || STORY.length * 3);

/** The resources each simulated node publishes: a node agent's, os-clock aside. */
const PUBLISHED = ['lockState', 'clockClass', 'gnss', 'syncState'] as const;

/** What each of them says in a state of the story. */
function resourceStates([gnss, lock, clockClass, sync, offsetNs]: State) {
  const states: Record<(typeof PUBLISHED)[number], ResourceState> = {
    lockState: { value: lock, offsetNs },
    clockClass: { value: String(clockClass) },
    gnss: { value: gnss },
    syncState: { value: sync },
  };
  return states;
}

async function call(method: string, path: string, body?: unknown) {
  let response: Response;
  try {
    response = await fetch(`${API}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    const cause =
      error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    throw new Error(
      `No O-Cloud Notification service answers at ${API} (${cause}). Start it with npm start, or set PORT to its port.`,
    );
  }
  const text = await response.text();
  const location = response.headers.get('location') ?? undefined;
  return { status: response.status, body: text ? JSON.parse(text) : undefined, location };
}

async function registerPublisher(address: string) {
  const created = await call('POST', '/publishers', { ResourceAddress: address });
  if (created.status === 201) return created.body.SubscriptionId;
  if (created.status === 409) {
    // One page, whatever the fleet: the publishers at or under the address.
    const list = await call('GET', `/publishers?ResourceAddress=${encodeURIComponent(address)}`);
    const found = (list.body ?? []).find((p: { ResourceAddress: string }) => p.ResourceAddress === address);
    if (found) return found.SubscriptionId;
  }
  throw new Error(`registering ${address}: HTTP ${created.status} ${JSON.stringify(created.body)}`);
}

async function main() {
  console.log(`Simulating ${CLUSTERS.length * SITES.length * NODES.length} nodes against ${API}`);
  const nodes: Array<{ node: string; publishers: Map<Resource, string>; step: number; last: string }> = [];
  for (const node of CLUSTERS.flatMap((c) => SITES.flatMap((s) => NODES.map((n) => `/${c}/${s}/${n}`)))) {
    const publishers = new Map<Resource, string>();
    for (const resource of PUBLISHED) {
      publishers.set(resource, await registerPublisher(resourceAddress(node, resource)));
    }
    nodes.push({ node, publishers, step: 0, last: '' });
  }
  const parent = `/${CLUSTERS[0]}`;
  const { secret } = consumerSecret();
  const subscribed = await call('POST', '/subscriptions', {
    ResourceAddress: parent,
    EndpointUri: CONSUMER_URL,
    SigningSecret: secret,
  });
  if (subscribed.status === 409) {
    // Subscribed by an earlier run, perhaps with another secret: sign with the consumer's from now on.
    const id = subscribed.location?.split('/').pop();
    if (id) await call('POST', `/subscriptions/${id}/secret/rotate`, { SigningSecret: secret });
  }
  if (subscribed.status === 201 || subscribed.status === 409) {
    console.log(`Consumer ${CONSUMER_URL} subscribed to ${parent} (every node of that cluster)`);
  } else {
    console.error(
      `Could not subscribe ${CONSUMER_URL} (HTTP ${subscribed.status}): ${subscribed.body?.detail ?? ''}\n` +
        'Is the sample consumer running? npm run consumer',
    );
  }
  const before = await consumerCounts();

  let published = 0;
  for (let tick = 0; tick < STEPS; tick++) {
    // A few nodes move on each tick, so the story unfolds at different times on different nodes.
    const moving = nodes.filter((_, i) => (i + tick) % 3 === 0);
    await Promise.all(
      moving.map(async (n) => {
        const state = STORY[n.step % STORY.length];
        n.step += 1;
        if (!state) return;
        const time = new Date().toISOString();
        const said = resourceStates(state);
        for (const resource of PUBLISHED) {
          const event = buildEvent(n.node, resource, said[resource], time);
          const result = await call('POST', `/publishers/${n.publishers.get(resource)}/events`, event);
          if (result.status === 202) published += 1;
          else if (result.status !== 200) {
            console.error(`publish to ${resourceAddress(n.node, resource)}: HTTP ${result.status}`);
          }
        }
        const summary = `${state[0]} / ${state[1]} / class ${state[2]}`;
        if (summary !== n.last) console.log(`${time} ${n.node}: GNSS ${summary}`);
        n.last = summary;
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
  }
  console.log(`${published} events published in ${STEPS} steps.`);

  // Delivery takes milliseconds; a few seconds cover a busy machine.
  let after = await consumerCounts();
  for (let waited = 0; waited < 10_000 && before && after?.verified === before.verified; waited += 500) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    after = await consumerCounts();
  }
  if (!after || !before) {
    console.log(`Done. (${CONSUMER_URL} is not the sample consumer: it could not say what arrived.)`);
    return;
  }
  const verified = after.verified - before.verified;
  const rejected = after.rejected - before.rejected;
  if (verified === 0 || rejected > 0) {
    console.error(
      `${verified === 0 ? 'Nothing arrived' : `${verified} notifications arrived`} at ${CONSUMER_URL}` +
        `${rejected > 0 ? `, and it rejected ${rejected} that it could not verify (see its terminal)` : ''}.`,
    );
    process.exitCode = 1;
    return;
  }
  console.log(`Done: the consumer verified ${verified} notifications.`);
}

/** What the sample consumer has counted (its GET), or undefined when it does not answer so. */
async function consumerCounts() {
  try {
    const response = await fetch(CONSUMER_URL, { signal: AbortSignal.timeout(2000) });
    const counts = (await response.json()) as { verified?: unknown; rejected?: unknown };
    return typeof counts?.verified === 'number'
      ? { verified: counts.verified, rejected: Number(counts.rejected) }
      : undefined;
  } catch {
    return undefined;
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
