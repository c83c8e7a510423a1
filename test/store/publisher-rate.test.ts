/**
 * The rate the publish update keeps on the state item (GCRA, docs/security.md), across
 * instances: each store guesses the update's branch from what it wrote itself, and a wrong guess
 * costs one more update, never a wrong answer.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { possiblePublisherAddresses, validateEvent } from '../../lib/domain/event';
import type { EventToAccept } from '../../lib/domain/model';
import { documentClient } from '../../lib/store/dynamo-client';
import { DynamoTable } from '../../lib/store/dynamo-table';
import { DynamoPublisherStore } from '../../lib/store/publisher-store';
import { lockStatePublisher } from '../support/api';
import { testTable } from '../support/env';
import { lockStateEvent } from '../support/fixtures';

const instance = () => new DynamoPublisherStore(new DynamoTable(documentClient(), testTable.tableName));
const RATE = { intervalMs: 1000, burst: 3 };

function toAccept(publisherId: string, node: string, nowMs: number, timeMs: number): EventToAccept {
  const { event, timeKey } = validateEvent(
    lockStateEvent({ node, id: randomUUID(), time: new Date(timeMs).toISOString() }),
  );
  return {
    publisherId,
    event,
    timeKey,
    acceptedAt: new Date(nowMs).toISOString(),
    publisherAddresses: possiblePublisherAddresses(event.data.values, event.source),
    rate: RATE,
  };
}

describe('the publisher rate across instances', () => {
  it('holds the burst whichever instance takes each event, and says when the next one conforms', async () => {
    const { node, publisherId } = await lockStatePublisher({ withState: false });
    const stores = [instance(), instance(), instance()];
    const now = Date.now();
    const kinds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const outcome = await stores[i % 3]?.acceptEvent(toAccept(publisherId, node, now, now - 10_000 + i));
      kinds.push(outcome?.kind === 'over-rate' ? `over-rate ${outcome.retryAfterMs}` : String(outcome?.kind));
    }
    // Three at once (the burst); the fourth conforms 1 s later (one interval).
    expect(kinds).toEqual(['accepted', 'accepted', 'accepted', 'over-rate 1000', 'over-rate 1000']);
  });

  it('refills at the rate: after an idle while, a full burst again, never more', async () => {
    const { node, publisherId } = await lockStatePublisher({ withState: false });
    const [a, b] = [instance(), instance()];
    const start = Date.now();
    const publish = async (store: DynamoPublisherStore, atMs: number, i: number) =>
      (await store.acceptEvent(toAccept(publisherId, node, atMs, start - 100_000 + i))).kind;
    expect([await publish(a, start, 1), await publish(b, start, 2), await publish(a, start, 3)]).toEqual([
      'accepted',
      'accepted',
      'accepted',
    ]);
    // 1.5 s later one interval has passed: one more, not two.
    expect([await publish(b, start + 1500, 4), await publish(a, start + 1500, 5)]).toEqual([
      'accepted',
      'over-rate',
    ]);
    // A minute idle: the burst again (the theoretical time is reset, not carried as credit).
    const later = start + 60_000;
    const kinds = [];
    for (let i = 0; i < 4; i++) kinds.push(await publish(i % 2 ? a : b, later, 10 + i));
    expect(kinds).toEqual(['accepted', 'accepted', 'accepted', 'over-rate']);
  });
});
