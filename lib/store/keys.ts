/**
 * The table layout, in one place. Items share the key pair (pk, sk). Ids follow from what makes a
 * subscription or publisher unique (lib/domain/ids.ts), so the item keyed by the id is also what
 * keeps it unique. Three sparse indexes serve the access patterns listed in docs/architecture.md:
 *   byAddress     (addrPk, addrSk)  subscriptions by exact address      SUBADDR#<address>        / <owner>#<gen>#<id>
 *   publisherTree (treePk, treeSk)  publisher addresses by cluster      TREE#<cluster>           / <address>/
 *   byList        (listPk, listSk)  subscriptions by owner; publishers  SUBS#<owner>#<gen>, PUBS / <createdAt>#<id>
 * A subscription belongs to the generation of its owner that was current when it was made
 * (`gen`, from the owner's count shards); delete-all starts a new generation, so one transaction
 * retires them all.
 */
const webhookKeyPrefix = 'WEBHOOK-KEY#';

export const INDEX = { byAddress: 'byAddress', publisherTree: 'publisherTree', byList: 'byList' } as const;

/** The attributes that make up a position in each index (a page's LastEvaluatedKey there). */
export const INDEX_KEY = {
  byAddress: ['pk', 'sk', 'addrPk', 'addrSk'],
  publisherTree: ['pk', 'sk', 'treePk', 'treeSk'],
  byList: ['pk', 'sk', 'listPk', 'listSk'],
} as const;

export const COUNTER_SHARDS = 10;
/** An owner's count is split like the counters, so that one principal's concurrent subscribes rarely conflict. */
export const OWNER_SHARDS = 10;
export type CounterKind = 'subscriptions' | 'publishers';

const owner = (principal: string) => encodeURIComponent(principal);

export const keys = {
  subscription: (id: string) => ({ pk: `SUB#${id}`, sk: 'SUB' }),
  subscriptionByAddress: (address: string, principal: string, gen: number, id: string) => ({
    addrPk: `SUBADDR#${address}`,
    addrSk: `${owner(principal)}#${gen}#${id}`,
  }),
  subscriptionsAt: (address: string) => `SUBADDR#${address}`,
  ownerPrefix: (principal: string, gen: number) => `${owner(principal)}#${gen}#`,
  subscriptionsOf: (principal: string, gen: number) => `SUBS#${owner(principal)}#${gen}`,
  /**
   * An owner's items: OWNER_SHARDS shards of its subscription count, each also holding its current
   * generation (delete-all writes them all at once, so they always agree). Shard 0 is the one
   * reads take the generation from, and it also holds `cleanedTo`.
   */
  owner: (principal: string) => ownerShard(principal, 0),
  ownerShard,
  ownerPartition: (principal: string) => `OWNER#${owner(principal)}`,
  randomOwnerShard: (principal: string) => ownerShard(principal, Math.floor(Math.random() * OWNER_SHARDS)),
  publisher: (id: string) => ({ pk: `PUB#${id}`, sk: 'PUB' }),
  publishers: 'PUBS',
  /** The publisher's current state, beside its record: the item publishing updates. */
  publisherState: (id: string) => ({ pk: `PUB#${id}`, sk: 'STATE' }),
  publisherTree: (address: string) => ({
    treePk: treePartition(address),
    treeSk: `${address}/`,
  }),
  /** The query of the publisher tree for the state items of the publishers at or under `address`. */
  publishersUnder: (address: string) => ({
    IndexName: INDEX.publisherTree,
    KeyConditionExpression: 'treePk = :pk AND begins_with(treeSk, :prefix)',
    ExpressionAttributeValues: { ':pk': treePartition(address), ':prefix': `${address}/` },
  }),
  /**
   * Delivery progress of one subscription for one publisher address: the newest delivered event
   * and the lease of the attempt in flight. In the subscription's partition, so it is found with it.
   */
  deliveryCursor: (subscriptionId: string, address: string) => ({
    pk: `SUB#${subscriptionId}`,
    sk: `CURSOR#${address}`,
  }),
  /** The prefix of a subscription's delivery cursors in its partition; the rest of the key is the address. */
  deliveryCursorPrefix: 'CURSOR#',
  /**
   * A dead letter, in its subscription's partition, of the incarnation made at `createdAt` (an id
   * made again is another incarnation), in its `order` (lib/domain/dead-letter.ts: event time first).
   */
  deadLetter: (subscriptionId: string, createdAt: string, order: string) => ({
    pk: `SUB#${subscriptionId}`,
    sk: `${deadLetterPrefix(createdAt)}${order}`,
  }),
  deadLetterPrefix,
  /**
   * The address prefixes granted to a producer principal (`grants`, a string set), listed with
   * the others through `byList` (`PRODUCERS` / the principal).
   */
  producerGrants: (principal: string) => ({ pk: `PRODUCER#${owner(principal)}`, sk: 'GRANTS' }),
  producers: 'PRODUCERS',
  /** How many publishers a producer principal registered (`count`): the publishers-per-producer quota. */
  producerPublishers: (principal: string) => ({ pk: `PRODUCER#${owner(principal)}`, sk: 'PUBLISHERS' }),
  counters: 'COUNTERS',
  counterShard: (kind: CounterKind) => ({
    pk: 'COUNTERS',
    sk: `${kind}#${Math.floor(Math.random() * COUNTER_SHARDS)}`,
  }),
  health: { pk: 'HEALTH', sk: 'HEALTH' },
  /** The KMS-encrypted data key that encrypts signing secrets (deployed stages; written once). */
  signingKey: { pk: 'CONFIG', sk: 'SIGNING-KEY' },
  /** One ed25519 key of `v1a` signatures per generation, zero-padded so that they sort in order. */
  webhookKey: (generation: number) => ({
    pk: 'CONFIG',
    sk: `${webhookKeyPrefix}${String(generation).padStart(6, '0')}`,
  }),
  webhookKeyPrefix,
};

/** Every dead letter of a subscription's partition, or those of one incarnation. */
function deadLetterPrefix(createdAt?: string): string {
  return createdAt === undefined ? 'DEADLETTER#' : `DEADLETTER#${createdAt}#`;
}

function ownerShard(principal: string, shard: number) {
  return { pk: `OWNER#${owner(principal)}`, sk: `COUNT#${shard}` };
}

/** Publisher addresses are grouped by their first segment, so one query finds any under a prefix. */
function treePartition(address: string): string {
  const end = address.indexOf('/', 1);
  return `TREE#${end === -1 ? address : address.slice(0, end)}`;
}
