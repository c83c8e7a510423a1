import type { StoredWebhookKey, WebhookKeyStore } from '../../../lib/domain/webhook-keys';
import type { SecretBox } from '../../../lib/secrets/secret-box';
import type { Journal } from './journal';
import { diskKeys } from './keys';

/** A key as the journal keeps it: its private half sealed, with the key's id as context. */
interface WebhookKeyItem extends Required<StoredWebhookKey> {
  readonly createdAt: string;
}

/**
 * The `v1a` ed25519 keys on the node's disk, one per generation, as DynamoWebhookKeyStore keeps
 * them; `secrets` is needed only to sign (`list(true)`) or rotate (`create`).
 */
export class DiskWebhookKeyStore implements WebhookKeyStore {
  constructor(
    private readonly journal: Journal,
    private readonly secrets?: SecretBox,
  ) {}

  /** Oldest first: the keys' generations are zero-padded, so the scan's order is theirs. */
  async list(open: boolean): Promise<StoredWebhookKey[]> {
    return Promise.all(
      this.journal.scan<WebhookKeyItem>(diskKeys.webhookKeys).map(async ([, item]) => {
        const key: StoredWebhookKey = {
          id: item.id,
          generation: item.generation,
          validFrom: item.validFrom,
          publicKey: item.publicKey,
        };
        if (!open) return key;
        return { ...key, privateKey: await this.box().open(item.privateKey, item.id) };
      }),
    );
  }

  async create(key: Required<StoredWebhookKey>): Promise<boolean> {
    const privateKey = await this.box().seal(key.privateKey, key.id);
    const itemKey = diskKeys.webhookKey(key.generation);
    if (this.journal.get(itemKey) !== undefined) return false;
    const item: WebhookKeyItem = { ...key, privateKey, createdAt: new Date().toISOString() };
    this.journal.commit([{ key: itemKey, value: item }]);
    return true;
  }

  private box(): SecretBox {
    if (!this.secrets) throw new Error('this store was built without the secret box: it cannot sign');
    return this.secrets;
  }
}
