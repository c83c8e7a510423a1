import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { WrappedKeyStore } from '../secrets/kms-data-key';
import { conditionHeld } from './conditional-write';
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
    return conditionHeld(
      this.table.client.send(
        new PutCommand({
          TableName: this.table.name,
          Item: {
            ...keys.signingKey,
            ciphertext: ciphertext.toString('base64'),
            createdAt: new Date().toISOString(),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }
}
