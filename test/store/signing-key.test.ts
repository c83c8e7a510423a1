/**
 * The deployed envelope scheme: the data key is generated once by KMS, only its ciphertext is
 * kept (one table item, in DynamoDB Local), and each cold start unwraps it with one Decrypt. KMS
 * cannot run here, so it alone is a stand-in that wraps keys reversibly and counts calls.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type Kms, kmsDataKey } from '../../lib/secrets/kms-data-key';
import { AesGcmSecretBox } from '../../lib/secrets/secret-box';
import { documentClient } from '../../lib/store/dynamo-client';
import { DynamoTable } from '../../lib/store/dynamo-table';
import { keys } from '../../lib/store/keys';
import { DynamoWrappedKeyStore } from '../../lib/store/signing-key-store';
import { ensureTable } from '../../scripts/dynamodb-local';

const KEY_ID = 'arn:aws:kms:us-east-1:123456789012:key/test';

function standInKms() {
  const pad = randomBytes(32);
  const xor = (bytes: Buffer) => Buffer.from(bytes.map((b, i) => b ^ (pad[i] ?? 0)));
  const calls = { generate: 0, decrypt: 0 };
  const kms: Kms = {
    async generateDataKey(keyId) {
      expect(keyId).toBe(KEY_ID);
      calls.generate++;
      const plaintext = randomBytes(32);
      return { plaintext, ciphertext: xor(plaintext) };
    },
    async decrypt(keyId, ciphertext) {
      expect(keyId).toBe(KEY_ID);
      calls.decrypt++;
      return xor(ciphertext);
    },
  };
  return { kms, calls };
}

describe('signing data key under KMS', () => {
  const table = new DynamoTable(documentClient(), String(process.env.TABLE_NAME));
  const store = new DynamoWrappedKeyStore(table);

  it('is generated once however many cold starts race, kept only wrapped, and unwrapped once per start', async () => {
    const { kms, calls } = standInKms();
    const starts = Array.from({ length: 5 }, () => new AesGcmSecretBox(kmsDataKey(kms, KEY_ID, store)));
    const sealed = await Promise.all(starts.map((box, i) => box.seal(`whsec_secret-${i}`, `sub-${i}`)));
    // Each start opens what any other sealed: they all ended up with the one stored key.
    for (const box of starts) {
      expect(await Promise.all(sealed.map((s, i) => box.open(s, `sub-${i}`)))).toEqual(
        sealed.map((_, i) => `whsec_secret-${i}`),
      );
    }
    const item = await table.get(keys.signingKey);
    expect(Object.keys(item ?? {}).sort()).toEqual(['ciphertext', 'createdAt', 'pk', 'sk']);

    const before = { ...calls };
    const later = new AesGcmSecretBox(kmsDataKey(kms, KEY_ID, store));
    await later.open(sealed[0] as string, 'sub-0');
    await later.open(sealed[1] as string, 'sub-1');
    await later.seal('whsec_x', 'sub-9');
    expect(calls).toEqual({ generate: before.generate, decrypt: before.decrypt + 1 });
  });

  it('does not open a sealed secret moved to another subscription', async () => {
    const { kms } = standInKms();
    const box = new AesGcmSecretBox(async () => randomBytes(32));
    const other = new AesGcmSecretBox(kmsDataKey(kms, KEY_ID, new DynamoWrappedKeyStore(table)));
    const sealed = await box.seal('whsec_abc', 'sub-a');
    expect(await box.open(sealed, 'sub-a')).toBe('whsec_abc');
    await expect(box.open(sealed, 'sub-b')).rejects.toThrow();
    await expect(other.open(sealed, 'sub-a')).rejects.toThrow();
  });
});

describe('a function that only opens secrets', () => {
  it('never makes the data key: warming and opening before any seal call no GenerateDataKey', async () => {
    const tableName = `${process.env.TABLE_NAME}-fresh`;
    await ensureTable({ endpoint: String(process.env.AWS_ENDPOINT_URL_DYNAMODB), tableName });
    const store = new DynamoWrappedKeyStore(new DynamoTable(documentClient(), tableName));
    const { kms, calls } = standInKms();
    const deliverer = new AesGcmSecretBox(kmsDataKey(kms, KEY_ID, store));
    deliverer.warm();
    await expect(deliverer.open('v1.AAAA.AAAA', 'sub-1')).rejects.toThrow(/no signing data key/);
    expect(calls.generate).toBe(0);

    // A subscribe on the same instance after a warm-up that found nothing: the seal makes the key.
    deliverer.warm();
    const sealed = await deliverer.seal('whsec_first', 'sub-1');
    expect(calls.generate).toBe(1);
    expect(await new AesGcmSecretBox(kmsDataKey(kms, KEY_ID, store)).open(sealed, 'sub-1')).toBe(
      'whsec_first',
    );
  });
});
