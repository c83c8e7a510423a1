/**
 * `npm run dead-letters`: the local queue's dead letters, what each was for and why it was given
 * up; `npm run dead-letters -- --redrive [id…]` puts them (all, or those ids) back for delivery.
 * Works whether `npm start` runs or not: its poller picks redriven messages up within a second,
 * or on the next start. Reads LOCAL_QUEUE_FILE as `npm start` does. In the cloud, SQS's own redrive
 * does the same (docs/local-queue.md).
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { openQueueStore, type StoredMessage } from './local-queue/store';
import { QUEUE_FILE } from './start-local';

const USAGE = 'usage: npm run dead-letters [-- --redrive [id…]]';

/**
 * A dead letter in words, and where a redrive puts it back (undefined: it cannot be delivered
 * again as it is). It got there one of three ways: given up by the deliver function (a
 * `dead-letter` body with its reason, subscription and event: lib/delivery/messages.ts), unreadable
 * on its queue (a `dead-letter` body with that queue, the reason and the body whole:
 * lib/queue/unreadable-message.ts), or moved by a queue's redrive policy after too many receives
 * (the original message, unchanged).
 */
function describeDeadLetter(message: StoredMessage): { text: string; redriveTo: string | undefined } {
  const body = objectIn(message.body) ?? {};
  const moved = message.deadLetterSourceQueue;
  const at = String(body.deadLetteredAt ?? new Date(message.sentAt).toISOString());
  const header = (attempts: unknown) =>
    `${message.messageId}  dead-lettered ${at} after ${attempts} attempt(s)`;
  if (!moved && body.kind === 'dead-letter' && typeof body.queue === 'string') {
    const text = [
      header(1),
      `  reason:       ${body.reason}`,
      `  queue:        ${body.queue} (unreadable there: dead-lettered on its first receive, not retried)`,
      `  body:         ${JSON.stringify(String(body.body).slice(0, 200))}`,
      CANNOT_REDRIVE,
    ];
    return { text: text.join('\n'), redriveTo: undefined };
  }
  const event = objectIn(body.event);
  const redriveTo =
    moved ?? (body.kind === 'dead-letter' && body.subscriptionId && event ? 'delivery' : undefined);
  const subscription =
    body.kind === 'fan-out' ? '(none: a fan-out of the event to every subscription)' : body.subscriptionId;
  const reason = moved
    ? `received ${message.receiveCount} times on the ${moved} queue without success (its redrive policy's maxReceiveCount)`
    : (body.reason ?? 'no reason given');
  const what = event
    ? `${event.type} from ${event.source} (id ${event.id}, time ${event.time})`
    : 'unreadable';
  // A pack or a clean-up job moved by the redrive policy carries no single event or subscription.
  const carried =
    moved && !event
      ? [`  message:      ${movedMessage(body)}`]
      : [
          `  endpoint:     ${body.endpointUri ?? '(not recorded: see the subscription)'}`,
          subscription ? `  subscription: ${subscription}` : '',
          `  event:        ${what}${body.resourceAddress ? ` at ${body.resourceAddress}` : ''}`,
        ];
  const text = [
    header(moved ? message.receiveCount : (body.attempts ?? message.receiveCount)),
    `  reason:       ${reason}`,
    ...carried,
    redriveTo ? '' : CANNOT_REDRIVE,
  ];
  return { text: text.filter(Boolean).join('\n'), redriveTo };
}

/** A message the redrive policy moved that carries no single event: a pack, or a clean-up job. */
function movedMessage(body: Record<string, unknown>): string {
  if (body.kind === 'deliveries' && Array.isArray(body.deliveries) && Array.isArray(body.events))
    return `a pack of ${body.deliveries.length} notification(s) of ${body.events.length} event(s), from a fan-out`;
  if (body.kind === 'remove-retired')
    return `delete-all's clean-up of ${body.owner}'s subscriptions of generations ${body.fromGeneration} to ${body.toGeneration}`;
  return 'unreadable';
}

const CANNOT_REDRIVE = '  (cannot be redriven: its message is not one the service can deliver)';

/** The JSON object `value` is or holds, or undefined. */
function objectIn(value: unknown): Record<string, unknown> | undefined {
  try {
    const parsed = typeof value === 'string' ? JSON.parse(value) : value;
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function runDeadLetters(args: string[], path: string = QUEUE_FILE) {
  let redrive: boolean | undefined;
  let ids: string[];
  try {
    const parsed = parseArgs({ args, allowPositionals: true, options: { redrive: { type: 'boolean' } } });
    redrive = parsed.values.redrive;
    ids = parsed.positionals;
  } catch {
    return { code: 2, text: USAGE };
  }
  if (ids.length > 0 && !redrive) return { code: 2, text: USAGE };
  if (!existsSync(path)) return { code: 0, text: `No local queue yet (${path}): no dead letters.` };
  const store = openQueueStore(path, { recover: false });
  try {
    const letters = new Map(store.messages('dead-letter').map((m) => [m.messageId, describeDeadLetter(m)]));
    if (!redrive) {
      if (letters.size === 0) return { code: 0, text: 'No dead letters.' };
      const hint = 'Redrive: npm run dead-letters -- --redrive [id…] (all when no id is given)';
      const texts = [...letters.values()].map((letter) => letter.text);
      return { code: 0, text: `${texts.join('\n\n')}\n\n${letters.size} dead letter(s). ${hint}` };
    }
    const chosen = ids.length > 0 ? ids : [...letters.keys()];
    const moved = store.moveBack(
      'dead-letter',
      chosen,
      (message) => letters.get(message.messageId)?.redriveTo,
    );
    const missing = chosen.filter((id) => !letters.has(id));
    const kept = chosen.filter((id) => letters.has(id) && !letters.get(id)?.redriveTo);
    const lines = [
      ...moved.map((message) => `redriven ${message.messageId} to the ${message.queue} queue`),
      ...kept.map((id) => `kept ${id}: it cannot be delivered again as it is`),
      ...missing.map((id) => `no dead letter ${id}`),
      `${moved.length} redriven.`,
    ];
    if (moved.some((message) => message.queue === 'delivery'))
      lines.push(
        "npm start's console says so if one is dropped rather than delivered (a newer event delivered since, or its subscription gone).",
      );
    return { code: missing.length > 0 ? 1 : 0, text: lines.join('\n') };
  } finally {
    store.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { code, text } = runDeadLetters(process.argv.slice(2));
  (code === 0 ? console.log : console.error)(text);
  process.exitCode = code;
}
