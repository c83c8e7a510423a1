/**
 * `npm run dead-letters`: the local queue's dead letters, what each was for and why it was given
 * up; `npm run dead-letters -- --redrive [id…]` puts them (all, or those ids) back for delivery.
 * Works whether `npm start` runs or not: its poller picks redriven messages up within a second,
 * or on the next start. Reads LOCAL_QUEUE_FILE as `npm start` does. In the cloud, SQS's own redrive
 * does the same (docs/local-queue.md).
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { openQueueStore, type StoredMessage } from './local-queue/store';
import { QUEUE_FILE } from './start-local';

const DEAD_LETTER_QUEUE = 'dead-letter';

/**
 * What a dead letter says, whichever way it got there: given up by the deliver function (a
 * `dead-letter` body with its reason), or moved by the queue's redrive policy after too many
 * receives (the original message, unchanged).
 */
export function describeDeadLetter(message: StoredMessage) {
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(message.body);
    if (typeof parsed === 'object' && parsed !== null) body = parsed;
  } catch {
    // described as unreadable below
  }
  const event =
    body.event && typeof body.event === 'object' ? (body.event as Record<string, unknown>) : undefined;
  const moved = message.deadLetterSourceQueue;
  return {
    id: message.messageId,
    reason: moved
      ? `received ${message.receiveCount} times on the ${moved} queue without success (its redrive policy's maxReceiveCount)`
      : String(body.reason ?? 'no reason given'),
    endpoint: typeof body.endpointUri === 'string' ? body.endpointUri : undefined,
    subscriptionId: typeof body.subscriptionId === 'string' ? body.subscriptionId : undefined,
    resourceAddress: typeof body.resourceAddress === 'string' ? body.resourceAddress : undefined,
    event: event
      ? {
          id: String(event.id),
          type: String(event.type),
          source: String(event.source),
          time: String(event.time),
        }
      : undefined,
    attempts: moved ? message.receiveCount : Number(body.attempts ?? message.receiveCount),
    deadLetteredAt: String(body.deadLetteredAt ?? new Date(message.sentAt).toISOString()),
    /** Where a redrive puts it back; undefined when it cannot be delivered again as it is. */
    redriveTo:
      moved ?? (body.kind === 'dead-letter' && body.subscriptionId && event ? 'delivery' : undefined),
  };
}

function formatLetter(letter: ReturnType<typeof describeDeadLetter>) {
  const event = letter.event
    ? `${letter.event.type} from ${letter.event.source} (id ${letter.event.id}, time ${letter.event.time})`
    : 'unreadable';
  return [
    `${letter.id}  dead-lettered ${letter.deadLetteredAt} after ${letter.attempts} attempt(s)`,
    `  reason:       ${letter.reason}`,
    `  endpoint:     ${letter.endpoint ?? '(not recorded: see the subscription)'}`,
    `  subscription: ${letter.subscriptionId ?? '(none: a fan-out of the event to every subscription)'}`,
    `  event:        ${event}${letter.resourceAddress ? ` at ${letter.resourceAddress}` : ''}`,
    letter.redriveTo ? '' : '  (cannot be redriven: its message is not one the service can deliver)',
  ]
    .filter(Boolean)
    .join('\n');
}

export function runDeadLetters(args: string[], path: string = QUEUE_FILE) {
  const redrive = args.includes('--redrive');
  const ids = args.filter((arg) => !arg.startsWith('--'));
  const unknown = args.filter((arg) => arg.startsWith('--') && arg !== '--redrive');
  if (unknown.length > 0 || (ids.length > 0 && !redrive)) {
    return { code: 2, text: 'usage: npm run dead-letters [-- --redrive [id…]]' };
  }
  if (!existsSync(path)) return { code: 0, text: `No local queue yet (${path}): no dead letters.` };
  const store = openQueueStore(path, { recover: false });
  try {
    const letters = store.messages(DEAD_LETTER_QUEUE).map(describeDeadLetter);
    if (!redrive) {
      if (letters.length === 0) return { code: 0, text: 'No dead letters.' };
      const hint = 'Redrive: npm run dead-letters -- --redrive [id…] (all when no id is given)';
      return {
        code: 0,
        text: `${letters.map(formatLetter).join('\n\n')}\n\n${letters.length} dead letter(s). ${hint}`,
      };
    }
    const known = new Set(letters.map((letter) => letter.id));
    const missing = ids.filter((id) => !known.has(id));
    const targets = new Map(letters.map((letter) => [letter.id, letter.redriveTo]));
    const moved = store.moveBack(DEAD_LETTER_QUEUE, ids.length > 0 ? ids : undefined, (message) =>
      targets.get(message.messageId),
    );
    const kept = (ids.length > 0 ? ids.filter((id) => known.has(id)) : [...known]).filter(
      (id) => !targets.get(id),
    );
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
