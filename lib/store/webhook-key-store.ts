import type { StoredWebhookKey, WebhookKeyStore } from '../domain/webhook-keys';
import type { SecretBox } from '../secrets/secret-box';
import type { DynamoTable } from './dynamo-table';
import { keys } from './keys';

/**
 * The ed25519 keys of `v1a` signatures: a handful of items in the CONFIG partition, their private
 * halves sealed like subscriptions' secrets (the KMS-wrapped data key deployed, .data/ locally).
 * `secrets` is needed only by the functions that sign (`list(true)`) or rotate (`create`).
 */
export class DynamoWebhookKeyStore implements WebhookKeyStore {
  constructor(
    private readonly table: DynamoTable,
    private readonly secrets?: SecretBox,
  ) {}

  async list(open: boolean): Promise<StoredWebhookKey[]> {
    const items = [];
    for await (const page of this.table.pages({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.webhookKey(0).pk, ':prefix': keys.webhookKeyPrefix },
    })) {
      items.push(...page);
    }
    return Promise.all(
      items.map(async (item) => {
        const key: StoredWebhookKey = {
          id: String(item.keyId),
          generation: Number(item.generation),
          validFrom: Number(item.validFrom),
          publicKey: String(item.publicKey),
        };
        if (!open) return key;
        return { ...key, privateKey: await this.box().open(String(item.privateKey), key.id) };
      }),
    );
  }

  async create(key: Required<StoredWebhookKey>): Promise<boolean> {
    return this.table.put({
      Item: {
        ...keys.webhookKey(key.generation),
        keyId: key.id,
        generation: key.generation,
        validFrom: key.validFrom,
        publicKey: key.publicKey,
        privateKey: await this.box().seal(key.privateKey, key.id),
        createdAt: new Date().toISOString(),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  }

  private box(): SecretBox {
    if (!this.secrets) throw new Error('this function was built without the secret box: it cannot sign');
    return this.secrets;
  }
}
