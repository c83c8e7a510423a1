/**
 * The `v1a` keys' rotation, on the rules a consumer is told (docs/security.md): the next key is
 * listed before it signs, the previous one stays listed for the overlap, and a key rotated out no
 * longer verifies anything. Signatures are checked with node:crypto and with @noble/ed25519, from
 * the published `whpk_` keys only.
 */

import { createPublicKey, verify } from 'node:crypto';
import * as noble from '@noble/ed25519';
import { describe, expect, it } from 'vitest';
import { webhookHeaders } from '../../lib/delivery/webhook';
import { type PublishedWebhookKey, WebhookKeys } from '../../lib/domain/webhook-keys';
import { documentClient } from '../../lib/store/dynamo-client';
import { DynamoTable } from '../../lib/store/dynamo-table';
import { keys } from '../../lib/store/keys';
import { DynamoWebhookKeyStore } from '../../lib/store/webhook-key-store';
import { testSecretBox } from '../support/env';

const table = new DynamoTable(documentClient(), String(process.env.TABLE_NAME));
const HOUR = 3600_000;
const settings = {
  rotationSeconds: 30 * 24 * 3600,
  publishLeadSeconds: 2 * 24 * 3600,
  overlapSeconds: 24 * 3600,
  refreshSeconds: 300,
};

/** What a consumer does: any listed key that verifies the `v1a` signature of the content. */
async function verifiedBy(
  published: readonly PublishedWebhookKey[],
  headers: Record<string, string>,
  body: string,
) {
  const content = `${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`;
  const signature = /(?:^| )v1a,(\S+)/.exec(headers['webhook-signature'] ?? '')?.[1] ?? '';
  const signatureBytes = Buffer.from(signature, 'base64');
  const results = [];
  for (const key of published) {
    const raw = Buffer.from(key.publicKey.slice('whpk_'.length), 'base64');
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') };
    const byNode = verify(
      null,
      Buffer.from(content),
      createPublicKey({ key: jwk, format: 'jwk' }),
      signatureBytes,
    );
    const byNoble = await noble.verifyAsync(signatureBytes, Buffer.from(content), raw);
    expect(byNoble, 'node:crypto and @noble/ed25519 agree').toBe(byNode);
    if (byNode) results.push(key.id);
  }
  return results;
}

describe('v1a signing keys', () => {
  it('makes one key, lists the next before it signs, keeps the previous for the overlap, then drops it', async () => {
    const store = new DynamoWebhookKeyStore(table, testSecretBox());
    const t0 = Date.parse('2030-01-01T00:00:00Z');
    const signer = new WebhookKeys(store, settings);
    expect(await signer.signingKey(t0)).toBeUndefined();
    expect(await signer.published(t0)).toEqual([]);

    // Two first subscribes at once: one key.
    await Promise.all([
      new WebhookKeys(store, settings).ensure(t0),
      new WebhookKeys(store, settings).ensure(t0),
    ]);
    const first = await signer.published(t0);
    expect(first).toEqual([
      {
        id: expect.stringMatching(/^whk_/),
        publicKey: expect.stringMatching(/^whpk_[A-Za-z0-9+/]{43}=$/),
        validFrom: t0,
        signing: true,
      },
    ]);
    const item = await table.get(keys.webhookKey(1));
    expect(String(item?.privateKey)).toMatch(/^v1\./); // sealed, as subscriptions' secrets are
    const body = '{"hello":"world"}';
    const at = (now: number) =>
      signer.signingKey(now).then((key) => webhookHeaders('msg_1', body, [], now, key));
    const oldHeaders = await at(t0 + HOUR);
    expect(await verifiedBy(first, oldHeaders, body)).toEqual([first[0]?.id]);

    // Nothing to do until the signing key's time is nearly up.
    await signer.ensure(t0 + 10 * 24 * HOUR);
    expect(await signer.published(t0 + 10 * 24 * HOUR)).toHaveLength(1);

    const rotatedAt = t0 + (settings.rotationSeconds - settings.publishLeadSeconds) * 1000;
    await signer.ensure(rotatedAt);
    const nextFrom = rotatedAt + settings.publishLeadSeconds * 1000;
    const listed = await signer.published(rotatedAt);
    expect(listed.map((k) => [k.signing, k.validFrom, k.validUntil])).toEqual([
      [true, t0, nextFrom + settings.overlapSeconds * 1000],
      [false, nextFrom, undefined],
    ]);
    // Listed, not yet signing: every process still signs with the first key.
    expect(await verifiedBy(listed, await at(nextFrom - 1000), body)).toEqual([listed[0]?.id]);
    const after = await signer.published(nextFrom);
    expect(after.map((k) => k.signing)).toEqual([false, true]);
    expect(await verifiedBy(after, await at(nextFrom + 1000), body)).toEqual([after[1]?.id]);

    // After the overlap the first key is no longer listed: what it signed verifies no more.
    const rotatedOut = await signer.published(nextFrom + settings.overlapSeconds * 1000);
    expect(rotatedOut.map((k) => k.id)).toEqual([after[1]?.id]);
    expect(await verifiedBy(rotatedOut, oldHeaders, body)).toEqual([]);
  });
});
