/**
 * A message that can never succeed — not JSON, or not the shape its queue carries — is
 * dead-lettered by its function on its first receive, whole and with why, whichever of the three
 * queues it is on: never retried (a poison fan-out used to come back 18 times, most of an hour; a
 * clean-up 5 times, 30 minutes), never dropped silently (docs/delivery.md: Poison messages).
 */
import { randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as deliverHandler } from '../../functions/queue/deliver';
import { handler as fanOutHandler } from '../../functions/queue/fan-out';
import { handler as removeRetiredHandler } from '../../functions/queue/remove-retired-subscriptions';
import type { OutgoingMessage, QueueName } from '../../lib/queue/queue-port';
import { readOrDeadLetter } from '../../lib/queue/unreadable-message';
import { runDeadLetters } from '../../scripts/dead-letters';
import { type LocalQueue, startLocalQueue } from '../../scripts/local-queue';
import { lambdaContext } from '../support/http-event';
import { RecordingQueue } from '../support/recording-queue';

const handlers: Record<string, (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>> = {
  fanOut: fanOutHandler,
  deliver: deliverHandler,
  removeRetiredSubscriptions: removeRetiredHandler,
};

let queue: LocalQueue;
/** Every receive the functions were invoked with: its body and ApproximateReceiveCount. */
const receives: { body: string; count: number }[] = [];
const saved = { ...process.env };
beforeAll(async () => {
  queue = await startLocalQueue({ log: () => undefined });
  Object.assign(process.env, queue.env); // read once, at the first enqueue
  queue.startPolling(async (functionKey, sqs) => {
    for (const record of sqs.Records) {
      receives.push({ body: record.body, count: Number(record.attributes.ApproximateReceiveCount) });
    }
    const handler = handlers[functionKey];
    if (!handler) throw new Error(`no handler for ${functionKey}`);
    return handler(sqs as unknown as SQSEvent, lambdaContext());
  });
});
afterAll(async () => {
  await queue.stop();
  process.env = saved;
});

describe.each([
  ['fan-out', 'delivery'],
  ['delivery', 'fan-out'],
  ['cleanup', 'delivery'],
] as const)('a poison message on the %s queue', (name, otherQueue) => {
  it('is dead-lettered on its first receive, whole, with the reason, and never retried', async () => {
    const nonce = randomUUID();
    const bodies = {
      'the body is not JSON': `{"kind": "${nonce}`,
      'the body is not a JSON object': `["${nonce}"]`,
      // A message of another queue: a shape this one never carries.
      'another queue': JSON.stringify({ kind: otherQueue === 'fan-out' ? 'fan-out' : 'delivery', nonce }),
    };
    queue.send(
      name,
      Object.values(bodies).map((body) => ({ body })),
    );
    const letters = () =>
      (queue.deadLetters() as unknown[]).filter(
        (letter) => JSON.stringify(letter).includes(nonce) && typeof letter === 'object',
      );
    await vi.waitFor(() => expect(letters()).toHaveLength(3), { timeout: 10_000, interval: 50 });
    await vi.waitFor(() => expect(queue.idle()).toBe(true), { timeout: 10_000, interval: 50 });

    expect(letters()).toEqual(
      expect.arrayContaining(
        Object.values(bodies).map((body) => ({
          kind: 'dead-letter',
          queue: name,
          reason: expect.stringMatching(new RegExp(`^unreadable message on the ${name} queue: \\S`)),
          body,
        })),
      ),
    );
    // `npm run dead-letters` says which queue each came from and why, and keeps it from a redrive.
    const listed = runDeadLetters([], queue.path).text.split('\n\n');
    const ours = listed.filter((letter) => letter.includes(nonce));
    expect(ours).toHaveLength(3);
    for (const letter of ours) {
      expect(letter).toMatch(new RegExp(`^  reason: +unreadable message on the ${name} queue: \\S`, 'm'));
      expect(letter).toContain(
        `\n  queue:        ${name} (unreadable there: dead-lettered on its first receive`,
      );
      expect(letter).not.toContain('subscription:');
      const id = letter.split(' ')[0] ?? '';
      expect(runDeadLetters(['--redrive', id], queue.path).text).toContain(`kept ${id}: it cannot be`);
    }
    const received = receives.filter((receive) => receive.body.includes(nonce));
    expect(received.map((receive) => receive.count)).toEqual([1, 1, 1]);
    expect(queue.messages(name).filter((message) => message.body.includes(nonce))).toEqual([]);
  });
});

it('reads a readable message, and names what is wrong with an unreadable one', async () => {
  const recording = new RecordingQueue();
  const parse = (body: string) => JSON.parse(body) as unknown;
  await expect(readOrDeadLetter(recording, 'fan-out', '{}', parse)).resolves.toEqual({});
  const { parseFanOutMessage } = await import('../../lib/delivery/messages');
  await expect(readOrDeadLetter(recording, 'fan-out', '{', parseFanOutMessage)).resolves.toBeUndefined();
  expect(recording.sent['dead-letter'].map((letter) => JSON.parse(letter).reason)).toEqual([
    'unreadable message on the fan-out queue: the body is not JSON',
  ]);
});

it('keeps a poison message on its queue when the dead-letter queue cannot take it: the record fails, and comes back', async () => {
  class NoDeadLetters extends RecordingQueue {
    override async send(name: QueueName, messages: readonly OutgoingMessage[]): Promise<void> {
      if (name === 'dead-letter') throw new Error('the dead-letter queue is unreachable');
      await super.send(name, messages);
    }
  }
  const { parseFanOutMessage } = await import('../../lib/delivery/messages');
  await expect(readOrDeadLetter(new NoDeadLetters(), 'fan-out', '[]', parseFanOutMessage)).rejects.toThrow(
    'the dead-letter queue is unreachable',
  );
});
