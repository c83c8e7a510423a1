import { type AttributeValue, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DeliveryAttempt, LeaseOutcome } from '../domain/model';
import { keys } from './keys';

/**
 * The ordering cursors of delivery: one item per (subscription, publisher address) holding the
 * newest delivered event (`deliveredTimeKey`, `deliveredEvent`) and the lease of the attempt in
 * flight (`leaseOwner`, `leaseUntil`). Every transition is one conditional UpdateItem, so two
 * attempts for the same pair can never both be sending, and none sends an event older than the
 * delivered one. Cursors carry a TTL refreshed on every write instead of being deleted with their
 * subscription: a cursor is only read while a delivery message for it lives, and deleting them
 * would make DELETE /subscriptions cost a query per subscription.
 */
export class DeliveryCursors {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async acquire(a: DeliveryAttempt): Promise<LeaseOutcome> {
    try {
      await this.client.send(
        new UpdateCommand({
          ...this.target(a),
          UpdateExpression: 'SET leaseOwner = :owner, leaseUntil = :until, expiresAt = :expires',
          ConditionExpression:
            '(attribute_not_exists(deliveredTimeKey) OR deliveredTimeKey < :t OR ' +
            '(deliveredTimeKey = :t AND deliveredEvent <> :e)) AND ' +
            '(attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
          ExpressionAttributeValues: {
            ':owner': a.leaseOwner,
            ':until': a.leaseUntil,
            ':expires': a.expiresAt,
            ':t': a.timeKey,
            ':e': a.eventKey,
            ':now': a.now,
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { kind: 'acquired' };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const current = error.Item ? unmarshall(error.Item as Record<string, AttributeValue>) : {};
      const delivered = typeof current.deliveredTimeKey === 'string' ? current.deliveredTimeKey : '';
      if (delivered > a.timeKey || (delivered === a.timeKey && current.deliveredEvent === a.eventKey)) {
        return { kind: 'superseded' };
      }
      return { kind: 'leased', leaseUntil: Number(current.leaseUntil ?? a.now) };
    }
  }

  async complete(a: DeliveryAttempt): Promise<void> {
    const moved = await this.conditionalUpdate({
      ...this.target(a),
      UpdateExpression:
        'SET deliveredTimeKey = :t, deliveredEvent = :e, expiresAt = :expires REMOVE leaseOwner, leaseUntil',
      ConditionExpression: 'leaseOwner = :owner',
      ExpressionAttributeValues: {
        ':t': a.timeKey,
        ':e': a.eventKey,
        ':expires': a.expiresAt,
        ':owner': a.leaseOwner,
      },
    });
    if (moved) return;
    // The lease ran out while the consumer answered and another attempt may hold it now: still
    // record the delivery, but only forward, and leave that attempt's lease alone.
    await this.conditionalUpdate({
      ...this.target(a),
      UpdateExpression: 'SET deliveredTimeKey = :t, deliveredEvent = :e, expiresAt = :expires',
      ConditionExpression: 'attribute_not_exists(deliveredTimeKey) OR deliveredTimeKey < :t',
      ExpressionAttributeValues: { ':t': a.timeKey, ':e': a.eventKey, ':expires': a.expiresAt },
    });
  }

  async release(a: DeliveryAttempt): Promise<void> {
    await this.conditionalUpdate({
      ...this.target(a),
      UpdateExpression: 'REMOVE leaseOwner, leaseUntil',
      ConditionExpression: 'leaseOwner = :owner',
      ExpressionAttributeValues: { ':owner': a.leaseOwner },
    });
  }

  private target(a: DeliveryAttempt) {
    return { TableName: this.tableName, Key: keys.deliveryCursor(a.subscriptionId, a.resourceAddress) };
  }

  /** False when the condition did not hold. */
  private async conditionalUpdate(input: UpdateCommandInput): Promise<boolean> {
    try {
      await this.client.send(new UpdateCommand(input));
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}
