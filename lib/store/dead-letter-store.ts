import { deadLetterExpiresAt, deadLetterOrder } from '../domain/dead-letter';
import type { NotificationEvent } from '../domain/event';
import type { DeadLetterRecord, Page, PageRequest, Subscription } from '../domain/model';
import type { DeadLetterStore } from '../domain/ports';
import type { DynamoTable, Item } from './dynamo-table';
import { keys } from './keys';

/** The table's key attributes, a position in a subscription's partition. */
export const PARTITION_KEY = ['pk', 'sk'] as const;

/**
 * The dead letters, kept in their subscription's partition for 14 days (their TTL). A
 * subscription made again has the id of the one deleted: only the letters under its own creation
 * time are shown.
 */
export class DynamoDeadLetterStore implements DeadLetterStore {
  constructor(private readonly table: DynamoTable) {}

  /** A put: the same notification dead-lettered again replaces it. */
  async recordDeadLetter(letter: DeadLetterRecord): Promise<void> {
    await this.table.put({ Item: deadLetterItem(letter) });
  }

  async listDeadLetters(subscription: Subscription, request: PageRequest): Promise<Page<DeadLetterRecord>> {
    const page = await this.table.listPage(
      partitionQuery(subscription.id, keys.deadLetterPrefix(subscription.createdAt)),
      request,
      PARTITION_KEY,
    );
    return { items: page.items.map(toDeadLetter), next: page.next };
  }

  async removeDeadLetters(letters: readonly DeadLetterRecord[]): Promise<void> {
    await this.table.batchDelete(letters.map(deadLetterKey));
  }

  /**
   * Removes a deleted subscription's dead letters: those of every incarnation, or of the one made at
   * `createdAt`. A query of their keys (none, nearly always) and batch deletes.
   */
  async removeAllOf(subscriptionId: string, createdAt?: string): Promise<void> {
    for await (const page of this.table.pages({
      ...partitionQuery(subscriptionId, keys.deadLetterPrefix(createdAt)),
      ProjectionExpression: 'pk, sk',
    })) {
      await this.table.batchDelete(page.map((item) => ({ pk: item.pk, sk: item.sk })));
    }
  }
}

/** The letter as it is (the dead-letter queue's members too, when it is one), keyed and expiring. */
export function deadLetterItem(letter: DeadLetterRecord): Item {
  return {
    ...letter,
    ...deadLetterKey(letter),
    event: JSON.stringify(letter.event),
    expiresAt: deadLetterExpiresAt(letter),
  };
}

function deadLetterKey(letter: DeadLetterRecord): Item {
  return keys.deadLetter(letter.subscriptionId, letter.subscriptionCreatedAt, deadLetterOrder(letter));
}

function toDeadLetter(item: Item): DeadLetterRecord {
  return {
    subscriptionId: String(item.subscriptionId),
    subscriptionCreatedAt: String(item.subscriptionCreatedAt),
    resourceAddress: String(item.resourceAddress),
    publisherId: String(item.publisherId),
    event: JSON.parse(String(item.event)) as NotificationEvent,
    acceptedAt: String(item.acceptedAt),
    reason: String(item.reason),
    attempts: Number(item.attempts),
    deadLetteredAt: String(item.deadLetteredAt),
  };
}

/** The items of the subscription's partition under `prefix`: its cursors, or its dead letters. */
export function partitionQuery(subscriptionId: string, prefix: string) {
  return {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.subscription(subscriptionId).pk, ':prefix': prefix },
  };
}
