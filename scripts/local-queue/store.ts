/**
 * The local queue's messages, in one SQLite file (through `libsql`, whose prebuilt binary is an
 * ordinary registry package: nothing is downloaded or compiled at install). Every call is one
 * transaction, committed before it returns: a send is on disk before the sender is answered.
 *
 * WAL mode. A send commits with synchronous=FULL: fsynced, so an acknowledged message survives a
 * SIGKILL of the whole process group and a power cut too (a SendMessageBatch of ten is one commit,
 * about 0.3 ms here). Receives, deletes and visibility changes commit with synchronous=NORMAL:
 * written to the WAL before they return, so they survive a SIGKILL (the kernel has them), and
 * the next fsync takes them along; a power cut could only undo one, which brings a message back
 * (at-least-once), never loses one. Fsyncing every delete too made a 2,000-subscription fan-out
 * take 21 s instead of 12 s (npm run bench:fanout, loaded machine). A temporary queue (the tests',
 * the benchmarks') is removed when its process stops, so it never fsyncs (synchronous=OFF), its
 * sends nor its WAL checkpoints: on a loaded machine one send took up to 200 ms, and the process
 * serving the queue stopped serving anything else; checkpoints stalled it for up to 40 ms
 * (bench:fanout's latency rounds).
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

export interface StoredMessage {
  /** Order of arrival. */
  seq: number;
  queue: string;
  messageId: string;
  body: string;
  sentAt: number;
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt: number | undefined;
  receiptHandle: string | undefined;
  /** The queue a redrive moved it from. */
  deadLetterSourceQueue: string | undefined;
}

interface Row {
  seq: number;
  queue: string;
  message_id: string;
  body: string;
  sent_at: number;
  visible_at: number;
  receive_count: number;
  first_received_at: number | null;
  receipt_handle: string | null;
  dead_letter_source: string | null;
}

/** SQS's redrive policy: after this many receives, to that queue. */
export interface Redrive {
  maxReceiveCount: number;
  deadLetterQueue: string;
}

export interface SendEntry {
  body: string;
  delayMs: number;
}

export type QueueStore = ReturnType<typeof openQueueStore>;

const toMessage = (row: Row): StoredMessage => ({
  seq: row.seq,
  queue: row.queue,
  messageId: row.message_id,
  body: row.body,
  sentAt: row.sent_at,
  visibleAt: row.visible_at,
  receiveCount: row.receive_count,
  firstReceivedAt: row.first_received_at ?? undefined,
  receiptHandle: row.receipt_handle ?? undefined,
  deadLetterSourceQueue: row.dead_letter_source ?? undefined,
});

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
    'SELECT * FROM messages WHERE queue = ? AND visible_at <= ? ORDER BY seq LIMIT ?',
  );
  const lease = db.prepare(
    `UPDATE messages SET receive_count = receive_count + 1, first_received_at = coalesce(first_received_at, ?),
       visible_at = ?, receipt_handle = ?, leased = 1 WHERE seq = ?`,
  );
  const move = db.prepare(
    `UPDATE messages SET queue = ?, dead_letter_source = ?, visible_at = ?, receipt_handle = NULL,
       leased = 0, seq = (SELECT max(seq) + 1 FROM messages) WHERE seq = ?`,
  );
  const byHandle = db.prepare('SELECT * FROM messages WHERE queue = ? AND receipt_handle = ?');
  const deleteOne = db.prepare('DELETE FROM messages WHERE seq = ?');
  const setVisibility = db.prepare('UPDATE messages SET visible_at = ?, leased = 0 WHERE seq = ?');
  const all = db.prepare('SELECT * FROM messages WHERE queue = ? ORDER BY seq');
  const nextVisible = db.prepare('SELECT min(visible_at) AS at FROM messages WHERE queue = ?');
  const counts = db.prepare(
    'SELECT queue, count(*) AS total, sum(visible_at <= ?) AS visible FROM messages GROUP BY queue',
  );
  const byId = db.prepare('SELECT * FROM messages WHERE queue = ? AND message_id = ?');
  const requeue = db.prepare(
    `UPDATE messages SET queue = ?, dead_letter_source = NULL, visible_at = ?, receive_count = 0,
       first_received_at = NULL, receipt_handle = NULL, leased = 0,
       seq = (SELECT max(seq) + 1 FROM messages) WHERE seq = ?`,
  );

  const insertAll = db.transaction((queue: string, entries: SendEntry[]) => {
    const now = Date.now();
    return entries.map((entry) => {
      const messageId = randomUUID();
      insert.run(queue, messageId, entry.body, now, now + Math.max(0, entry.delayMs));
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

  const receive = db.transaction(
    (queue: string, max: number, visibilityMs: number, redrive: Redrive | undefined) => {
      const now = Date.now();
      const received: StoredMessage[] = [];
      const moved: StoredMessage[] = [];
      // A few more than asked for, so that messages moved to the dead-letter queue do not shorten the batch.
      for (const row of visibleHead.all(queue, now, max * 2) as Row[]) {
        if (received.length >= max) break;
        if (redrive && row.receive_count >= redrive.maxReceiveCount) {
          move.run(redrive.deadLetterQueue, queue, now, row.seq);
          moved.push({ ...toMessage(row), queue: redrive.deadLetterQueue, deadLetterSourceQueue: queue });
          continue;
        }
        const receiptHandle = `${row.message_id}.${row.receive_count + 1}.${randomUUID()}`;
        lease.run(now, now + Math.max(0, visibilityMs), receiptHandle, row.seq);
        received.push({
          ...toMessage(row),
          receiveCount: row.receive_count + 1,
          firstReceivedAt: row.first_received_at ?? now,
          visibleAt: now + visibilityMs,
          receiptHandle,
        });
      }
      return { received, moved };
    },
  );

  const remove = (queue: string, receiptHandle: string): boolean => {
    const row = byHandle.get(queue, receiptHandle) as Row | undefined;
    if (row) deleteOne.run(row.seq);
    return row !== undefined;
  };

  /** One transaction for a batch's deletes (DeleteMessageBatch); returns how many were deleted. */
  const removeAll = db.transaction(
    (queue: string, receiptHandles: string[]) =>
      receiptHandles.filter((handle) => remove(queue, handle)).length,
  );

  const changeVisibility = (queue: string, receiptHandle: string, visibilityMs: number): boolean => {
    const row = byHandle.get(queue, receiptHandle) as Row | undefined;
    if (row) setVisibility.run(Date.now() + Math.max(0, visibilityMs), row.seq);
    return row !== undefined;
  };

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
      const rows = (ids ? ids.map((id) => byId.get(queue, id)).filter(Boolean) : all.all(queue)) as Row[];
      const now = Date.now();
      const moved: StoredMessage[] = [];
      for (const row of rows) {
        const message = toMessage(row);
        const target = destination(message);
        if (!target) continue;
        requeue.run(target, now, row.seq);
        moved.push({ ...message, queue: target });
      }
      return moved;
    },
  );

  return {
    path,
    send,
    receive,
    delete: remove,
    deleteAll: removeAll,
    changeVisibility,
    moveBack,
    messages: (queue: string) => (all.all(queue) as Row[]).map(toMessage),
    /** When the next message becomes visible (Infinity: none). */
    nextVisibleAt: (queue: string): number => {
      const row = nextVisible.get(queue) as { at: number | null } | undefined;
      return row?.at ?? Number.POSITIVE_INFINITY;
    },
    counts: (): Map<string, { total: number; visible: number }> => {
      const rows = counts.all(Date.now()) as { queue: string; total: number; visible: number | null }[];
      return new Map(rows.map((row) => [row.queue, { total: row.total, visible: row.visible ?? 0 }]));
    },
    close: () => db.close(),
  };
}
