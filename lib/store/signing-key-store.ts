import type { WrappedKeyStore } from '../secrets/kms-data-key';
import type { DynamoTable } from './dynamo-table';
import { keys } from './keys';

/** The one item holding the KMS ciphertext of the signing data key. */
export class DynamoWrappedKeyStore implements WrappedKeyStore {
  constructor(private readonly table: DynamoTable) {}

  async get(): Promise<Buffer | undefined> {
    const item = await this.table.get(keys.signingKey);
    return typeof item?.ciphertext === 'string' ? Buffer.from(item.ciphertext, 'base64') : undefined;
  }

  putIfAbsent(ciphertext: Buffer): Promise<boolean> {
    return this.table.put({
      Item: {
        ...keys.signingKey,
        ciphertext: ciphertext.toString('base64'),
        createdAt: new Date().toISOString(),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  }
}
