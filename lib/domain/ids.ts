import { createHash } from 'node:crypto';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * The service assigns UUID v4 ids, so anything else is unknown without asking the store (and a
 * path segment too long for a table key would otherwise reach it).
 */
export function isServiceId(id: string): boolean {
  return UUID_V4.test(id);
}

/**
 * A subscription's id follows from what makes it unique (its owner, address and endpoint), so
 * every item of a subscription can be found from its id alone: a delete is one transaction, with
 * no read first, and the create's condition on that id is its 409. Re-subscribing after a delete
 * gives the same id again.
 */
export function subscriptionIdFor(owner: string, resourceAddress: string, endpointUri: string): string {
  return nameBasedUuid('subscription', owner, resourceAddress, endpointUri);
}

/** A publisher's id follows from its address, for the same reasons as `subscriptionIdFor`. */
export function publisherIdFor(resourceAddress: string): string {
  return nameBasedUuid('publisher', resourceAddress);
}

/**
 * UUID v4 form (version 4, RFC 9562 variant) whose 122 other bits are the first bits of a
 * SHA-256 over the names, instead of bits from a random source. Names are joined by a newline;
 * addresses and endpoint URIs cannot contain one, so two different name lists never join alike.
 */
function nameBasedUuid(...names: string[]): string {
  const hash = createHash('sha256').update(names.join('\n')).digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x40;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
