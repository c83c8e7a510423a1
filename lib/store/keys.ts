/**
 * The table layout, in one place. Items share the key pair (pk, sk). Ids follow from what makes a
 * subscription or publisher unique (lib/domain/ids.ts), so the item keyed by the id is also what
 * keeps it unique. Three sparse indexes serve the access patterns listed in the README:
 *   byAddress     (addrPk, addrSk)  subscriptions by exact address      SUBADDR#<address>  / <owner>#<id>
 *   publisherTree (treePk, treeSk)  publisher addresses by cluster      TREE#<cluster>     / <address>/
 *   byList        (listPk, listSk)  subscriptions by owner; publishers  SUBS#<owner>, PUBS / <createdAt>#<id>
 */
export const INDEX = { byAddress: 'byAddress', publisherTree: 'publisherTree', byList: 'byList' } as const;

export const COUNTER_SHARDS = 10;
export type CounterKind = 'subscriptions' | 'publishers';

const owner = (principal: string) => encodeURIComponent(principal);

export const keys = {
  subscription: (id: string) => ({ pk: `SUB#${id}`, sk: 'SUB' }),
  subscriptionByAddress: (address: string, principal: string, id: string) => ({
    addrPk: `SUBADDR#${address}`,
    addrSk: `${owner(principal)}#${id}`,
  }),
  subscriptionsAt: (address: string) => `SUBADDR#${address}`,
  ownerPrefix: (principal: string) => `${owner(principal)}#`,
  subscriptionsOf: (principal: string) => `SUBS#${owner(principal)}`,
  publisher: (id: string) => ({ pk: `PUB#${id}`, sk: 'PUB' }),
  publishers: 'PUBS',
  /** The publisher's current state, beside its record: the item publishing updates. */
  publisherState: (id: string) => ({ pk: `PUB#${id}`, sk: 'STATE' }),
  publisherTree: (address: string) => ({
    treePk: treePartition(address),
    treeSk: `${address}/`,
  }),
  treePartition,
  /**
   * Delivery progress of one subscription for one publisher address: the newest delivered event
   * and the lease of the attempt in flight. In the subscription's partition, so it is found with it.
   */
  deliveryCursor: (subscriptionId: string, address: string) => ({
    pk: `SUB#${subscriptionId}`,
    sk: `CURSOR#${address}`,
  }),
  acceptedEvent: (publisherId: string, source: string, id: string) => ({
    pk: `EVENT#${publisherId}#${source}#${id}`,
    sk: 'EVENT',
  }),
  counters: 'COUNTERS',
  counterShard: (kind: CounterKind) => ({
    pk: 'COUNTERS',
    sk: `${kind}#${Math.floor(Math.random() * COUNTER_SHARDS)}`,
  }),
  health: { pk: 'HEALTH', sk: 'HEALTH' },
  /** The KMS-encrypted data key that encrypts signing secrets (deployed stages; written once). */
  signingKey: { pk: 'CONFIG', sk: 'SIGNING-KEY' },
};

/** Publisher addresses are grouped by their first segment, so one query finds any under a prefix. */
function treePartition(address: string): string {
  const end = address.indexOf('/', 1);
  return `TREE#${end === -1 ? address : address.slice(0, end)}`;
}
