import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { ServiceUnavailableError } from '../errors';
import { traced } from '../tracing';
import { type DataKeyLoader, NoDataKeyYet } from './secret-box';

/** The two KMS calls of the envelope scheme. */
export interface Kms {
  generateDataKey(keyId: string): Promise<{ plaintext: Buffer; ciphertext: Buffer }>;
  decrypt(keyId: string, ciphertext: Buffer): Promise<Buffer>;
}

// One client per process, built on first use (only a cold start's unwrapping, or the stack's
// first subscribe, calls KMS). Exported so that whoever counts the functions' KMS calls counts
// this very client's.
let client: KMSClient | undefined;

export function kmsClient(): KMSClient {
  client ??= traced(
    new KMSClient({
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 1000, requestTimeout: 3000 },
    }),
  );
  return client;
}

/**
 * KMS through the AWS SDK's client (AWS_ENDPOINT_URL_KMS, when set, is read by the SDK itself).
 * Its standard retry strategy is the call's one retry policy; what still fails is a 503: with
 * Retry-After 1 when KMS could not be reached, 5 when it answered with a refusal (its reason is
 * logged through the cause, never shown to the client).
 */
export function awsKms(): Kms {
  const client = kmsClient();
  const call = async <T>(send: () => Promise<T>): Promise<T> => {
    try {
      return await send();
    } catch (error) {
      const answered = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      throw answered === undefined
        ? new ServiceUnavailableError('The signing key service could not be reached; try again', 1, {
            cause: error,
          })
        : new ServiceUnavailableError('The signing key service refused the request; try again later', 5, {
            cause: error,
          });
    }
  };
  const bytes = (value: Uint8Array | undefined) => Buffer.from(value ?? new Uint8Array());
  return {
    async generateDataKey(keyId) {
      const out = await call(() =>
        client.send(new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256' })),
      );
      return { plaintext: bytes(out.Plaintext), ciphertext: bytes(out.CiphertextBlob) };
    },
    async decrypt(keyId, ciphertext) {
      const out = await call(() =>
        client.send(new DecryptCommand({ KeyId: keyId, CiphertextBlob: ciphertext })),
      );
      return bytes(out.Plaintext);
    },
  };
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
