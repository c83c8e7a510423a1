import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SigningSecretStore } from '../domain/ports';
import type { SecretBox } from '../secrets/secret-box';
import { conditionHeld } from './conditional-write';
import type { DynamoTable } from './dynamo-table';
import { keys } from './keys';
import { readOwner } from './owners';

/**
 * Rotation of a subscription's signing secret, apart from the subscription store so that only the
 * rotation route carries it. The attributes are those the subscription store reads.
 */
export class DynamoSigningSecretStore implements SigningSecretStore {
  constructor(
    private readonly table: DynamoTable,
    private readonly secrets: SecretBox,
  ) {}

  /**
   * One read, of the owner's generation (a subscription retired by delete-all is gone), then one
   * update: the sealed current secret is copied as it is, since its context (the id) stays.
   */
  async rotateSigningSecret(
    id: string,
    owner: string,
    secret: string,
    previousUntil: number,
  ): Promise<boolean> {
    const [sealed, { gen }] = await Promise.all([
      this.secrets.seal(secret, id),
      readOwner(this.table, owner),
    ]);
    return conditionHeld(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: keys.subscription(id),
          // A subscription made before secrets existed has no current one to keep.
          UpdateExpression:
            'SET previousSigningSecret = if_not_exists(signingSecret, :none), previousSecretUntil = :until, signingSecret = :secret',
          ConditionExpression: 'attribute_exists(pk) AND #owner = :owner AND gen = :gen',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':owner': owner,
            ':gen': gen,
            ':secret': sealed,
            ':until': previousUntil,
            ':none': '',
          },
        }),
      ),
    );
  }
}
