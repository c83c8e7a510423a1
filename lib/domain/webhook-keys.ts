import { createPrivateKey, generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto';

/**
 * The service's ed25519 keys of `v1a` signatures (Standard Webhooks): one signs at a time; the next
 * is listed `publishLeadSeconds` before it signs, and the previous stays listed `overlapSeconds`
 * after. Keys are never changed once stored: when one stops being listed follows from its successor.
 */
export const PUBLIC_KEY_PREFIX = 'whpk_';

/** One key as stored: its private half sealed by the store (lib/store/webhook-key-store.ts). */
const EMPTY_LIST_REFRESH_MS = 1000;

export interface StoredWebhookKey {
  readonly id: string;
  /** 1 for the first key, one more for each rotation: the store keeps one key per generation. */
  readonly generation: number;
  /** Epoch ms from which it signs. */
  readonly validFrom: number;
  /** `whpk_` and the base64 of the 32-byte raw public key. */
  readonly publicKey: string;
  /** PKCS #8 DER, base64; only when the store was asked to open it. */
  readonly privateKey?: string;
}

export interface WebhookKeyStore {
  /** Every key, oldest first; `open` unseals their private halves (a signer's read). */
  list(open: boolean): Promise<StoredWebhookKey[]>;
  /** False when the generation is taken already (another process rotated first). */
  create(key: Required<StoredWebhookKey>): Promise<boolean>;
}

export interface PublishedWebhookKey {
  readonly id: string;
  readonly publicKey: string;
  readonly validFrom: number;
  /** Absent for the newest key. */
  readonly validUntil?: number;
  /** Whether it is the key notifications are signed with now. */
  readonly signing: boolean;
}

export interface WebhookKeySettings {
  readonly rotationSeconds: number;
  readonly publishLeadSeconds: number;
  readonly overlapSeconds: number;
  readonly refreshSeconds: number;
}

export class WebhookKeys {
  private cache: { readAt: number; keys: Promise<StoredWebhookKey[]>; empty: boolean } | undefined;
  private signers = new Map<string, KeyObject>();
  private ensuring: Promise<void> | undefined;

  constructor(
    private readonly store: WebhookKeyStore,
    private readonly settings: WebhookKeySettings,
  ) {}

  /** The keys a consumer may verify with at `now`: the signing one, the next once listed, the previous during the overlap. */
  async published(now: number): Promise<PublishedWebhookKey[]> {
    const keys = await this.store.list(false);
    const signing = signingAt(keys, now);
    return withValidity(keys, this.settings)
      .filter(({ validUntil }) => validUntil === undefined || validUntil > now)
      .map(({ key, validUntil }) => ({
        id: key.id,
        publicKey: key.publicKey,
        validFrom: key.validFrom,
        ...(validUntil === undefined ? {} : { validUntil }),
        signing: key.id === signing?.id,
      }));
  }

  /**
   * The private key that signs at `now`, from the list read once per process and again every
   * `refreshSeconds`; undefined before the first key exists.
   */
  async signingKey(now: number): Promise<KeyObject | undefined> {
    const key = signingAt(await this.keys(now), now);
    if (!key?.privateKey) return undefined;
    let signer = this.signers.get(key.id);
    if (!signer) {
      signer = createPrivateKey({ key: Buffer.from(key.privateKey, 'base64'), format: 'der', type: 'pkcs8' });
      this.signers.set(key.id, signer);
    }
    return signer;
  }

  /**
   * Makes the first key when there is none, and the next one when the signing key's time is nearly
   * up: listed from now, signing `publishLeadSeconds` later. Only the functions that may seal call it.
   */
  ensure(now: number): Promise<void> {
    // Concurrent subscribes of one process share one check (and at most one new key).
    if (!this.ensuring) {
      const ensuring = this.ensureNow(now).finally(() => {
        if (this.ensuring === ensuring) this.ensuring = undefined;
      });
      this.ensuring = ensuring;
    }
    return this.ensuring;
  }

  private async ensureNow(now: number): Promise<void> {
    const keys = await this.keys(now);
    const last = keys.at(-1);
    const lead = this.settings.publishLeadSeconds * 1000;
    if (
      last &&
      (last.validFrom > now || now < last.validFrom + this.settings.rotationSeconds * 1000 - lead)
    ) {
      return;
    }
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
    await this.store.create({
      id: `whk_${randomUUID()}`,
      generation: (last?.generation ?? 0) + 1,
      // The first key signs at once: nothing was signed before it, so no one waits for it.
      validFrom: last ? now + lead : now,
      publicKey: `${PUBLIC_KEY_PREFIX}${raw.toString('base64')}`,
      privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    });
    // Made here or by another process (create answered false): read the list again either way.
    this.cache = undefined;
  }

  /**
   * The list, read again after `refreshSeconds`, or after a second while it was empty: the first key
   * is made by the first subscribe, and its notifications are signed with it from then on.
   */
  private keys(now: number): Promise<StoredWebhookKey[]> {
    const age = this.cache ? now - this.cache.readAt : Number.POSITIVE_INFINITY;
    if (age >= this.settings.refreshSeconds * 1000 || (this.cache?.empty && age >= EMPTY_LIST_REFRESH_MS)) {
      const keys = this.store.list(true);
      const entry = { readAt: now, keys, empty: false };
      this.cache = entry;
      keys.then(
        (list) => {
          entry.empty = list.length === 0;
        },
        () => {
          if (this.cache === entry) this.cache = undefined;
        },
      );
    }
    return (this.cache as { keys: Promise<StoredWebhookKey[]> }).keys;
  }
}

/** The newest key whose time has come. */
function signingAt(keys: readonly StoredWebhookKey[], now: number): StoredWebhookKey | undefined {
  return keys.filter((key) => key.validFrom <= now).at(-1);
}

function withValidity(keys: readonly StoredWebhookKey[], settings: WebhookKeySettings) {
  return keys.map((key, i) => {
    const next = keys[i + 1];
    return { key, validUntil: next ? next.validFrom + settings.overlapSeconds * 1000 : undefined };
  });
}
