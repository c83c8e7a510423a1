import { describe, expect, it } from 'vitest';
import { isServiceId, publisherIdFor, subscriptionIdFor } from '../../lib/domain/ids';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const address = '/east-edge-10/site-3/node-7/sync/ptp-status/lock-state';
const endpoint = 'https://consumer.example.com/events';

describe('service ids', () => {
  it('are UUID v4 strings', () => {
    const ids = [
      subscriptionIdFor('anonymous', address, endpoint),
      publisherIdFor(address),
      ...Array.from({ length: 200 }, (_, i) => publisherIdFor(`/c/s/node-${i}`)),
    ];
    for (const id of ids) {
      expect(id).toMatch(UUID_V4);
      expect(isServiceId(id)).toBe(true);
    }
  });

  it('follow from what makes a subscription or publisher unique, and only from that', () => {
    expect(subscriptionIdFor('a', address, endpoint)).toBe(subscriptionIdFor('a', address, endpoint));
    const variants = new Set([
      subscriptionIdFor('a', address, endpoint),
      subscriptionIdFor('b', address, endpoint),
      subscriptionIdFor('a', `${address}x`, endpoint),
      subscriptionIdFor('a', address, `${endpoint}/x`),
      publisherIdFor(address),
      publisherIdFor(`${address}x`),
    ]);
    expect(variants.size).toBe(6);
  });
});
