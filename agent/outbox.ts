/**
 * The events not yet accepted by the service, in order, on disk: they survive an outage of the
 * service and a restart of the agent. Order matters per address (the service keeps each
 * address's events in time order), so the oldest event of every address can be sent at once. Bounded: when full, the oldest event that a newer one of the
 * same resource supersedes goes first (a consumer needs the newest state, and it stays last); only
 * when every queued event is its resource's newest does the oldest go.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { NotificationEvent } from '../lib/domain/event';

export interface QueuedEvent {
  /** The publisher's resource address. */
  readonly address: string;
  readonly event: NotificationEvent;
}

export class Outbox {
  private readonly queue: QueuedEvent[];

  constructor(
    private readonly path: string,
    private readonly maxEvents: number,
    private readonly onDrop: (dropped: QueuedEvent) => void,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.queue = load(path);
  }

  get size(): number {
    return this.queue.length;
  }

  /** The oldest event of each address: what can be sent now without passing an older one. */
  heads(): QueuedEvent[] {
    const seen = new Set<string>();
    return this.queue.filter((item) => !seen.has(item.address) && seen.add(item.address));
  }

  push(item: QueuedEvent): void {
    this.queue.push(item);
    while (this.queue.length > this.maxEvents) {
      const superseded = this.queue.findIndex((queued, i) =>
        this.queue.slice(i + 1).some((later) => later.address === queued.address),
      );
      const [dropped] = this.queue.splice(Math.max(0, superseded), 1);
      if (dropped) this.onDrop(dropped);
    }
    this.save();
  }

  /** Removes an event once the service has taken it (or refused it for good). */
  remove(item: QueuedEvent): void {
    const i = this.queue.indexOf(item);
    if (i < 0) return;
    this.queue.splice(i, 1);
    this.save();
  }

  private save(): void {
    // Written aside and renamed: a crash leaves the old file or the new one, never half of one.
    const temporary = `${this.path}.tmp`;
    writeFileSync(temporary, JSON.stringify(this.queue));
    renameSync(temporary, this.path);
  }
}

function load(path: string): QueuedEvent[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? (parsed as QueuedEvent[]) : [];
  } catch {
    return [];
  }
}
