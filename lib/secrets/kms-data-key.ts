import { type DataKeyLoader, NoDataKeyYet } from './secret-box';

/** The two KMS calls of the envelope scheme (lib/secrets/kms-client.ts speaks them). */
export interface Kms {
  generateDataKey(keyId: string): Promise<{ plaintext: Buffer; ciphertext: Buffer }>;
  decrypt(keyId: string, ciphertext: Buffer): Promise<Buffer>;
}

/** Where the KMS-encrypted data key is kept (one table item, written once). */
export interface WrappedKeyStore {
  get(): Promise<Buffer | undefined>;
  /** False when another instance stored one first. */
  putIfAbsent(ciphertext: Buffer): Promise<boolean>;
}

/**
 * The deployed data key: generated once by KMS under the stack's key, kept only as KMS ciphertext,
 * and decrypted once per cold start (one Decrypt call). Two first instances racing both generate
 * a key; the conditional write keeps one, and the loser decrypts the winner's. Only sealing
 * creates it, so a function that only opens secrets never needs GenerateDataKey.
 */
export function kmsDataKey(kms: Kms, keyId: string, store: WrappedKeyStore): DataKeyLoader {
  return async (create) => {
    const wrapped = await store.get();
    if (wrapped) return kms.decrypt(keyId, wrapped);
    if (!create) throw new NoDataKeyYet('no signing data key has been made yet');
    const generated = await kms.generateDataKey(keyId);
    if (await store.putIfAbsent(generated.ciphertext)) return generated.plaintext;
    const winner = await store.get();
    if (!winner) throw new Error('the signing data key vanished from the table');
    return kms.decrypt(keyId, winner);
  };
}
