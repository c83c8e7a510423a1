/**
 * The local queue's messages, in one SQLite file (through `libsql`, whose prebuilt binary is an
 * ordinary registry package: nothing is downloaded or compiled at install). Every call is one
 * transaction, committed before it returns: a send is on disk before the sender is answered.
 *
 * WAL mode. A send commits with synchronous=FULL: fsynced, so an acknowledged message survives a
 * SIGKILL of the whole process group and a power cut too. Receives, deletes and visibility changes
 * commit with synchronous=NORMAL: in the WAL before they return, so they survive a SIGKILL; a power
 * cut could only undo one, which brings a message back (at-least-once), never loses one. Fsyncing
 * those too made a 2,000-subscription fan-out take 21 s instead of 12 s. A temporary queue (the
 * tests', the benchmarks') is removed when its process stops, so it never fsyncs (synchronous=OFF):
 * on a loaded machine one fsynced send took up to 200 ms, and stalled the process serving the queue.
 * The figures and the choice of SQLite: docs/local-queue.md.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'libsql';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS messages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  queue TEXT NOT NULL,
  message_id TEXT NOT NULL UNIQUE,
  body TEXT NOT NULL,
  sent_at INTEGER NOT NULL,
  visible_at INTEGER NOT NULL,
  receive_count INTEGER NOT NULL DEFAULT 0,
  first_received_at INTEGER,
  receipt_handle TEXT,
  leased INTEGER NOT NULL DEFAULT 0,
  dead_letter_source TEXT
);
CREATE INDEX IF NOT EXISTS messages_by_queue ON messages (queue, seq);
CREATE INDEX IF NOT EXISTS messages_by_visibility ON messages (queue, visible_at);
CREATE UNIQUE INDEX IF NOT EXISTS messages_by_receipt ON messages (receipt_handle);
`;

/** The columns as a StoredMessage names them. */
const MESSAGE = `seq, queue, message_id AS messageId, body, sent_at AS sentAt, visible_at AS visibleAt,
  receive_count AS receiveCount, first_received_at AS firstReceivedAt, receipt_handle AS receiptHandle,
  dead_letter_source AS deadLetterSourceQueue`;

export interface StoredMessage {
  /** Order of arrival. */
  seq: number;
  queue: string;
  messageId: string;
  body: string;
  sentAt: number;
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt: number | null;
  /** The latest receive's; an older one no longer deletes or hides the message. */
  receiptHandle: string | null;
  /** The queue a redrive moved it from. */
  deadLetterSourceQueue: string | null;
}

/** SQS's redrive policy: after this many receives, to that queue. */
export interface Redrive {
  maxReceiveCount: number;
  deadLetterQueue: string;
}

export interface SendEntry {
  body: string;
  delayMs?: number;
}

export type QueueStore = ReturnType<typeof openQueueStore>;

/** The MD5 of a body, as SQS reports it and its SDK checks it. */
export const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/**
 * Opens (and creates) the file. When the queue server opens it (`recover`), a message that was
 * received but neither deleted nor given a new visibility was in the hands of an invocation that
 * is gone with the previous process: it is visible again at once, as SQS would show it once that
 * invocation's time-out had passed. A tool reading beside a running server does not recover.
 * `durable`: fsync each send; false (a temporary queue): never fsync.
 */
export function openQueueStore(
  path: string,
  { recover = true, durable = true }: { recover?: boolean; durable?: boolean } = {},
) {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(durable ? 'synchronous = NORMAL' : 'synchronous = OFF');
  // `npm run dead-letters` writes from another process while the server runs.
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  if (recover) db.prepare('UPDATE messages SET visible_at = ?, leased = 0 WHERE leased = 1').run(Date.now());

  const insert = db.prepare(
    'INSERT INTO messages (queue, message_id, body, sent_at, visible_at) VALUES (?, ?, ?, ?, ?)',
  );
  const visibleHead = db.prepare(
    `SELECT ${MESSAGE} FROM messages WHERE queue = ? AND visible_at <= ? ORDER BY seq LIMIT ?`,
  );
  const lease = db.prepare(
    `UPDATE messages SET receive_count = receive_count + 1, first_received_at = coalesce(first_received_at, ?),
       visible_at = ?, receipt_handle = ?, leased = 1 WHERE seq = ?`,
  );
  const toDeadLetters = db.prepare(
    `UPDATE messages SET queue = ?, dead_letter_source = ?, visible_at = ?, receipt_handle = NULL,
       leased = 0, seq = (SELECT max(seq) + 1 FROM messages) WHERE seq = ?`,
  );
  const deleteByHandle = db.prepare('DELETE FROM messages WHERE queue = ? AND receipt_handle = ?');
  const setVisibility = db.prepare(
    'UPDATE messages SET visible_at = ?, leased = 0 WHERE queue = ? AND receipt_handle = ?',
  );
  const all = db.prepare(`SELECT ${MESSAGE} FROM messages WHERE queue = ? ORDER BY seq`);
  const nextVisible = db.prepare('SELECT min(visible_at) AS at FROM messages WHERE queue = ?');
  const counts = db.prepare(
    'SELECT queue, count(*) AS total, sum(visible_at <= ?) AS visible FROM messages GROUP BY queue',
  );
  const requeue = db.prepare(
    `UPDATE messages SET queue = ?, dead_letter_source = NULL, visible_at = ?, receive_count = 0,
       first_received_at = NULL, receipt_handle = NULL, leased = 0,
       seq = (SELECT max(seq) + 1 FROM messages) WHERE seq = ?`,
  );

  const insertAll = db.transaction((queue: string, entries: SendEntry[]) => {
    const now = Date.now();
    return entries.map((entry) => {
      const messageId = randomUUID();
      insert.run(queue, messageId, entry.body, now, now + (entry.delayMs ?? 0));
      return messageId;
    });
  });

  const send = (queue: string, entries: SendEntry[]): string[] => {
    if (!durable) return insertAll(queue, entries);
    db.pragma('synchronous = FULL');
    try {
      return insertAll(queue, entries);
    } finally {
      db.pragma('synchronous = NORMAL');
    }
  };

  /** Up to `max` visible messages, hidden for `visibilityMs`; `moved`: those redriven instead. */
  const receive = db.transaction(
    (queue: string, max: number, visibilityMs: number, redrive: Redrive | undefined) => {
      const now = Date.now();
      const received: StoredMessage[] = [];
      const moved: StoredMessage[] = [];
      // A few more than asked for, so that messages moved to the dead-letter queue do not shorten the batch.
      for (const message of visibleHead.all(queue, now, max * 2) as StoredMessage[]) {
        if (received.length >= max) break;
        if (redrive && message.receiveCount >= redrive.maxReceiveCount) {
          toDeadLetters.run(redrive.deadLetterQueue, queue, now, message.seq);
          moved.push({ ...message, queue: redrive.deadLetterQueue, deadLetterSourceQueue: queue });
          continue;
        }
        const receiveCount = message.receiveCount + 1;
        const receiptHandle = `${message.messageId}.${receiveCount}.${randomUUID()}`;
        lease.run(now, now + visibilityMs, receiptHandle, message.seq);
        received.push({
          ...message,
          receiveCount,
          firstReceivedAt: message.firstReceivedAt ?? now,
          visibleAt: now + visibilityMs,
          receiptHandle,
        });
      }
      return { received, moved };
    },
  );

  /**
   * Moves messages of one queue to the end of another as new, never received (SQS's
   * StartMessageMoveTask). `destination` picks each message's queue; undefined leaves it.
   */
  const moveBack = db.transaction(
    (
      queue: string,
      ids: string[] | undefined,
      destination: (message: StoredMessage) => string | undefined,
    ) => {
      const now = Date.now();
      const moved: StoredMessage[] = [];
      for (const message of all.all(queue) as StoredMessage[]) {
        const target = ids && !ids.includes(message.messageId) ? undefined : destination(message);
        if (!target) continue;
        requeue.run(target, now, message.seq);
        moved.push({ ...message, queue: target });
      }
      return moved;
    },
  );

  return {
    send,
    receive,
    /** One transaction for a batch's deletes; a receipt handle that is not the latest deletes nothing. */
    deleteAll: db.transaction((queue: string, receiptHandles: string[]) => {
      for (const handle of receiptHandles) deleteByHandle.run(queue, handle);
    }),
    /** False when `receiptHandle` is not the latest of a message of `queue`. */
    changeVisibility: (queue: string, receiptHandle: string, visibilityMs: number): boolean =>
      setVisibility.run(Date.now() + visibilityMs, queue, receiptHandle).changes > 0,
    moveBack,
    messages: (queue: string) => all.all(queue) as StoredMessage[],
    /** When the next message becomes visible (Infinity: none). */
    nextVisibleAt: (queue: string): number =>
      (nextVisible.get(queue) as { at: number | null }).at ?? Number.POSITIVE_INFINITY,
    /** Each queue's messages, and how many of them are visible; a queue with none is left out. */
    counts: () => counts.all(Date.now()) as { queue: string; total: number; visible: number }[],
    close: () => db.close(),
  };
}
