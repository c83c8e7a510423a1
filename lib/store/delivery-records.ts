import { createHash } from 'node:crypto';
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type NotificationEvent, parseTime } from '../domain/event';
import type {
  AttemptFailure,
  DeadLetterRecord,
  DeliveredEvent,
  DeliveryStatus,
  Page,
  PageRequest,
  Subscription,
} from '../domain/model';
import type { DeliveryRecords } from '../domain/ports';
import queues from '../queue/queues.json';
import { pauseBeforeRetry } from '../retry-pause';
import { supersedes } from './delivery-cursors';
import type { DynamoTable, Item } from './dynamo-table';
import { keys } from './keys';
import { queryPage } from './query-page';

/** As long as the dead-letter queue keeps it (14 days, SQS's longest): the queue and the table keep a letter alike. */
const DEAD_LETTER_RETENTION_SECONDS = queues['dead-letter'].messageRetentionSeconds;

const PARTITION_KEY = ['pk', 'sk'] as const;
/** BatchWriteItem's limit of requests per call. */
const DELETES_PER_BATCH = 25;
const BATCH_WRITE_ATTEMPTS = 8;

/**
 * What a consumer can see of its deliveries: the delivery cursors, which already keep the newest
 * delivered event and the last failure per address (lib/store/delivery-cursors.ts), and the dead
 * letters kept in the subscription's partition for 14 days (their TTL). A subscription made again
 * has the id of the one deleted: only what its own incarnation wrote is shown (cursors written
 * since it was made, dead letters under its creation time).
 */
export class DynamoDeliveryRecords implements DeliveryRecords {
  constructor(private readonly table: DynamoTable) {}

  async listDeliveries(subscription: Subscription, request: PageRequest): Promise<Page<DeliveryStatus>> {
    const page = await queryPage(
      this.table,
      partitionQuery(subscription.id, keys.deliveryCursorPrefix),
      request,
      PARTITION_KEY,
    );
    const since = Date.parse(subscription.createdAt);
    const items = page.items.flatMap((item) => toDeliveryStatus(item, since) ?? []);
    return { items, next: page.next };
  }

  async listDeadLetters(subscription: Subscription, request: PageRequest): Promise<Page<DeadLetterRecord>> {
    const page = await queryPage(
      this.table,
      partitionQuery(subscription.id, keys.deadLetterPrefix(subscription.createdAt)),
      request,
      PARTITION_KEY,
    );
    return { items: page.items.map(toDeadLetter), next: page.next };
  }

  async deliveredSince(
    subscriptionId: string,
    letters: readonly DeadLetterRecord[],
  ): Promise<Set<DeadLetterRecord>> {
    const addresses = [...new Set(letters.map((letter) => letter.resourceAddress))];
    const cursors = await this.table.batchGet(
      addresses.map((address) => keys.deliveryCursor(subscriptionId, address)),
    );
    const bySk = new Map(cursors.map((cursor) => [String(cursor.sk), cursor]));
    return new Set(
      letters.filter((letter) => {
        const cursor = bySk.get(keys.deliveryCursor(subscriptionId, letter.resourceAddress).sk);
        return (
          cursor !== undefined && supersedes(cursor, parseTime(letter.event.time), eventKey(letter.event))
        );
      }),
    );
  }

  async removeDeadLetters(letters: readonly DeadLetterRecord[]): Promise<void> {
    await deleteKeys(this.table, letters.map(deadLetterKey));
  }
}

/** Keeps one dead letter with its subscription (a put: the same notification dead-lettered again replaces it). */
export async function recordDeadLetter(table: DynamoTable, letter: DeadLetterRecord): Promise<void> {
  await table.client.send(new PutCommand({ TableName: table.name, Item: deadLetterItem(letter) }));
}

/**
 * Removes a deleted subscription's dead letters: those of every incarnation, or of the one made at
 * `createdAt`. A query of their keys (none, nearly always) and batch deletes.
 */
export async function removeDeadLettersOf(
  table: DynamoTable,
  subscriptionId: string,
  createdAt?: string,
): Promise<void> {
  for await (const page of table.pages({
    ...partitionQuery(subscriptionId, keys.deadLetterPrefix(createdAt)),
    ProjectionExpression: 'pk, sk',
  })) {
    await deleteKeys(
      table,
      page.map((item) => ({ pk: item.pk, sk: item.sk })),
    );
  }
}

/** The letter as it is (the dead-letter queue's members too, when it is one), keyed and expiring. */
export function deadLetterItem(letter: DeadLetterRecord): Item {
  return {
    ...letter,
    ...deadLetterKey(letter),
    event: JSON.stringify(letter.event),
    expiresAt: Math.ceil(Date.parse(letter.deadLetteredAt) / 1000) + DEAD_LETTER_RETENTION_SECONDS,
  };
}

function deadLetterKey(letter: DeadLetterRecord): Item {
  const digest = createHash('sha256')
    .update(`${letter.resourceAddress}\n${eventKey(letter.event)}`)
    .digest('base64url')
    .slice(0, 22);
  return keys.deadLetter(
    letter.subscriptionId,
    letter.subscriptionCreatedAt,
    parseTime(letter.event.time),
    digest,
  );
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

/** The cursor's outcomes written since `since` (epoch ms), or undefined when it has none. */
function toDeliveryStatus(item: Item, since: number): DeliveryStatus | undefined {
  const d = item.lastDelivered as Item | undefined;
  const f = item.lastFailure as Item | undefined;
  const delivered: DeliveredEvent | undefined =
    d && Number(d.deliveredAt) >= since
      ? {
          source: String(d.source),
          id: String(d.id),
          time: String(d.time),
          deliveredAt: Number(d.deliveredAt),
          ...(d.latencyMs === undefined ? {} : { latencyMs: Number(d.latencyMs) }),
        }
      : undefined;
  const lastFailure: AttemptFailure | undefined =
    f && Number(f.at) >= since
      ? { at: Number(f.at), reason: String(f.reason), attempts: Number(f.attempts) }
      : undefined;
  if (!delivered && !lastFailure) return undefined;
  return {
    resourceAddress: String(item.sk).slice(keys.deliveryCursorPrefix.length),
    ...(delivered ? { delivered } : {}),
    ...(lastFailure ? { lastFailure } : {}),
  };
}

function partitionQuery(subscriptionId: string, prefix: string) {
  return {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.subscription(subscriptionId).pk, ':prefix': prefix },
  };
}

function eventKey(event: Pick<NotificationEvent, 'source' | 'id'>): string {
  return `${event.source}#${event.id}`;
}

/** Deletes by key, 25 to a BatchWriteItem, retrying what DynamoDB leaves unprocessed (throttling). */
async function deleteKeys(table: DynamoTable, keysToDelete: readonly Item[]): Promise<void> {
  for (let start = 0; start < keysToDelete.length; start += DELETES_PER_BATCH) {
    let requests = keysToDelete
      .slice(start, start + DELETES_PER_BATCH)
      .map((key) => ({ DeleteRequest: { Key: key } }));
    for (let attempt = 1; requests.length > 0; attempt++) {
      if (attempt > BATCH_WRITE_ATTEMPTS) throw new Error(`${requests.length} deletes left unprocessed`);
      if (attempt > 1) await pauseBeforeRetry(attempt - 1);
      const result = await table.client.send(
        new BatchWriteCommand({ RequestItems: { [table.name]: requests } }),
      );
      requests = (result.UnprocessedItems?.[table.name] ?? []) as typeof requests;
    }
  }
}
