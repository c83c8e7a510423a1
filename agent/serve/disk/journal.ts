/**
 * A small durable key-value store for one process, on the node's disk: the node's O-Cloud API keeps
 * its subscriptions, publishers, cursors and queue in one of these (the key layout: keys.ts).
 *
 * On disk, in `dir`: `snapshot.json` (every key and value at the last compaction) and `journal.log`
 * (one JSON line per commit since). A commit is appended and fdatasync'd before memory changes and
 * before it returns, so whatever a caller saw committed survives a crash; a commit's line is one
 * write, so a crash leaves at most a torn last line, which opening ignores (that commit never
 * returned). Reads are served from memory.
 *
 * Synchronous on purpose: the process is single-threaded, so a check and the commit that depends
 * on it, in one synchronous stretch, are atomic like a DynamoDB condition expression.
 * One process per directory: nothing locks it.
 */
import {
  closeSync,
  fdatasyncSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/** One write of a commit: `value` undefined deletes the key. Values are JSON (no Dates, no Buffers). */
export interface JournalWrite {
  readonly key: string;
  readonly value?: unknown;
}

/** A line of the log: the commit's writes, `[key, value]` to put, `[key]` to delete. */
type LogEntry = [string, unknown] | [string];

/** When the log is compacted into the snapshot: whichever comes first. */
const COMPACT_AT_BYTES = 4 * 1024 * 1024;
const COMPACT_AT_LINES = 10_000;

const SNAPSHOT = 'snapshot.json';
const LOG = 'journal.log';

export class Journal {
  private logFd: number | undefined;
  private logBytes = 0;
  private logLines = 0;

  private constructor(
    private readonly dir: string,
    private readonly items: Map<string, unknown>,
  ) {
    this.logFd = openSync(join(dir, LOG), 'a');
  }

  /** Opens (creating) the store in `dir`: the snapshot, then the log replayed over it, then compacted. */
  static open(dir: string): Journal {
    mkdirSync(dir, { recursive: true });
    const items = new Map<string, unknown>();
    for (const [key, value] of readSnapshot(join(dir, SNAPSHOT))) items.set(key, freeze(value));
    for (const entries of readLog(join(dir, LOG))) apply(items, entries);
    const journal = new Journal(dir, items);
    // Also drops a torn last line, so that the next commit does not start on the same line as it.
    journal.compact();
    return journal;
  }

  /** The value at `key`; frozen, as every value read is (a change must go through `commit`). */
  get<T>(key: string): T | undefined {
    return this.items.get(key) as T | undefined;
  }

  /** Every key starting with `prefix` and its value, in plain string order of the keys. */
  scan<T>(prefix: string): Array<[string, T]> {
    const found: Array<[string, T]> = [];
    for (const [key, value] of this.items) if (key.startsWith(prefix)) found.push([key, value as T]);
    return found.sort(([a], [b]) => inStringOrder(a, b));
  }

  /** Writes all of `writes` or none: on disk first (fdatasync'd), then in memory. */
  commit(writes: readonly JournalWrite[]): void {
    if (writes.length === 0) return;
    const fd = this.openFd();
    const entries = writes.map((w): LogEntry => (w.value === undefined ? [w.key] : [w.key, w.value]));
    const line = `${JSON.stringify(entries)}\n`;
    const bytes = Buffer.from(line, 'utf8');
    // One write of the whole line: a crash tears at most this line, never an earlier one.
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written);
    fdatasyncSync(fd);
    // Memory holds what the disk holds: the values as they read back, not the caller's objects.
    apply(this.items, JSON.parse(line) as LogEntry[]);
    this.logBytes += bytes.length;
    this.logLines += 1;
    if (this.logBytes >= COMPACT_AT_BYTES || this.logLines >= COMPACT_AT_LINES) this.compact();
  }

  /** Throws unless the store is open and its log takes a sync (GET /health). */
  assertWritable(): void {
    fdatasyncSync(this.openFd());
  }

  close(): void {
    if (this.logFd === undefined) return;
    closeSync(this.logFd);
    this.logFd = undefined;
  }

  /** Writes every item into a new snapshot beside the old one, renames it into place, then empties the log. */
  private compact(): void {
    const fd = this.openFd();
    const path = join(this.dir, SNAPSHOT);
    const aside = `${path}.tmp`;
    const snapshotFd = openSync(aside, 'w');
    try {
      writeSync(snapshotFd, JSON.stringify([...this.items]));
      fsyncSync(snapshotFd);
    } finally {
      closeSync(snapshotFd);
    }
    renameSync(aside, path);
    // The rename must be on disk before the log is emptied, or a crash could lose both.
    syncDirectory(this.dir);
    ftruncateSync(fd, 0);
    fsyncSync(fd);
    this.logBytes = 0;
    this.logLines = 0;
  }

  private openFd(): number {
    if (this.logFd === undefined) throw new Error(`journal ${this.dir} is closed`);
    return this.logFd;
  }
}

/** Plain string order (UTF-16 code units), not the locale's: the order of the journal's scans. */
export function inStringOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function readSnapshot(path: string): Array<[string, unknown]> {
  const text = readIfPresent(path);
  return text === undefined ? [] : (JSON.parse(text) as Array<[string, unknown]>);
}

/** The commits of the log, in order; a last line without its newline is a commit that never returned. */
function readLog(path: string): LogEntry[][] {
  const lines = (readIfPresent(path) ?? '').split('\n');
  // The last piece is '' after a complete line, or the torn line of a crash: either way not a commit.
  lines.pop();
  return lines.map((line, i) => {
    try {
      return JSON.parse(line) as LogEntry[];
    } catch (error) {
      // A complete line that does not parse is not a crash's doing: refuse rather than lose data.
      throw new Error(`${path}: line ${i + 1} is not a commit`, { cause: error });
    }
  });
}

function apply(items: Map<string, unknown>, entries: readonly LogEntry[]): void {
  for (const entry of entries) {
    if (entry.length === 1) items.delete(entry[0]);
    else items.set(entry[0], freeze(entry[1]));
  }
}

function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Values are shared by every read, so none may change one in place. */
function freeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) freeze(member);
    Object.freeze(value);
  }
  return value;
}
