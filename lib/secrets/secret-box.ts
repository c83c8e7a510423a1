import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Encrypts secrets for storage beyond the table's own encryption at rest. */
export interface SecretBox {
  /** `context` (the owning item's id) is authenticated with the secret: a sealed value moved to another item does not open. */
  seal(plain: string, context: string): Promise<string>;
  open(sealed: string, context: string): Promise<string>;
  /** Starts loading the data key, if there is one yet, so a cold start fetches it alongside its other reads. */
  warm(): void;
}

/** Loads the data key; makes it first when `create` is set and there is none (only sealing does). */
export type DataKeyLoader = (create: boolean) => Promise<Buffer>;

/** No data key exists yet: nothing has been sealed, so there is nothing to open either. */
export class NoDataKeyYet extends Error {}

const FORMAT = 'v1';

/**
 * AES-256-GCM under one data key, loaded once per process (a file locally, a KMS-wrapped key in a
 * deployment: lib/secrets/kms-data-key.ts). Sealed form: `v1.<base64 iv>.<base64 ciphertext+tag>`.
 */
export class AesGcmSecretBox implements SecretBox {
  private key: Promise<Buffer> | undefined;

  constructor(private readonly loadKey: DataKeyLoader) {}

  async seal(plain: string, context: string): Promise<string> {
    let key: Buffer;
    try {
      key = await this.dataKey(true);
    } catch (error) {
      // A warm-up that found no key yet may be what was cached: this time, make it.
      if (!(error instanceof NoDataKeyYet)) throw error;
      key = await this.dataKey(true);
    }
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context));
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${FORMAT}.${iv.toString('base64')}.${sealed.toString('base64')}`;
  }

  async open(sealed: string, context: string): Promise<string> {
    const [format, iv, data] = sealed.split('.');
    if (format !== FORMAT || !iv || !data) throw new Error(`a sealed secret of ${context} is malformed`);
    const bytes = Buffer.from(data, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', await this.dataKey(false), Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString(
      'utf8',
    );
  }

  warm(): void {
    this.dataKey(false).catch(() => undefined); // a failure surfaces at the seal or open that needs the key
  }

  /** Loaded once; a failed load is tried again by the next request rather than remembered. */
  private dataKey(create: boolean): Promise<Buffer> {
    if (!this.key) {
      const loading = this.loadKey(create);
      this.key = loading;
      loading.catch(() => {
        if (this.key === loading) this.key = undefined;
      });
    }
    return this.key;
  }
}
