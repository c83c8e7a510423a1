/**
 * Follows a stock phc2sys through the offset lines it writes for the system clock, from wherever
 * they go: standard input (`-`), a file (`tail -F`), or a systemd unit's journal
 * (`journal:<unit>`, `journalctl --follow`). The line format is linuxptp's (phc2sys.c,
 * `update_clock`, and print.c; see docs/agent.md):
 *
 *   phc2sys[12345.678]: CLOCK_REALTIME phc offset       -12 s2 freq   -3061 delay    511
 *
 * and, with `-u N`, the summary `CLOCK_REALTIME rms 9 max 21 freq -3058 +/- 12 delay 510 +/- 2`.
 * No line for SILENCE_MS (phc2sys writes one per clock update, every second by default) is a
 * source lost: holdover begins.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { OsClockReport } from './chronyd';
import type { OsClockObservation } from './states';

const SILENCE_MS = 3000;
const RESTART_MS = 1000;

/** One phc2sys line about CLOCK_REALTIME as an observation; undefined for any other line. */
export function readPhc2sysLine(line: string): OsClockObservation | undefined {
  // `%s %s offset %9" PRId64 " s%d freq %+7.0f`: the clock adjusted, the source's label (phc,
  // sys, pps), the offset in ns and the servo state (0 unlocked, 1 jump, 2 locked, 3 stable).
  const update = /\bCLOCK_REALTIME \S+ offset\s+(-?\d+) s(\d) freq\b/.exec(line);
  if (update) {
    const offsetNs = Number(update[1]);
    return Number(update[2]) >= 2 ? { kind: 'synchronised', offsetNs } : { kind: 'unlocked', offsetNs };
  }
  // `%s rms %4.0f max %4.0f freq`: the summary over -u updates; its largest offset is judged.
  const summary = /\bCLOCK_REALTIME rms\s+\d+ max\s+(\d+) freq\b/.exec(line);
  if (summary) return { kind: 'synchronised', offsetNs: Number(summary[1]) };
  return undefined;
}

export class Phc2sysWatcher {
  private running = false;
  private child: ChildProcess | undefined;
  private silenceTimer: NodeJS.Timeout | undefined;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    /** `-`, `journal:<unit>` or a file's path. */
    private readonly source: string,
    private readonly onReport: (report: OsClockReport) => void,
  ) {}

  start(): void {
    this.running = true;
    this.open();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.silenceTimer);
    clearTimeout(this.restartTimer);
    this.child?.kill();
  }

  private open(): void {
    this.expectLine();
    if (this.source === '-') {
      this.follow(process.stdin, () => this.ended('standard input closed'));
      return;
    }
    const [command, args] = this.source.startsWith('journal:')
      ? ['journalctl', ['--follow', '--lines=0', '--output=cat', `--unit=${this.source.slice(8)}`]]
      : ['tail', ['-F', '-n', '0', this.source]];
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-500);
    });
    child.on('error', (error) => this.ended(`${command}: ${error.message}`));
    if (child.stdout) this.follow(child.stdout, () => undefined);
    child.on('close', (code) => this.ended(`${command} exited ${code}${stderr ? `: ${stderr.trim()}` : ''}`));
  }

  private follow(stream: Readable, onEnd: () => void): void {
    const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', (line) => {
      const observation = readPhc2sysLine(line);
      if (!observation || !this.running) return;
      this.expectLine();
      this.onReport({ observation, at: Date.now(), reason: `phc2sys: ${line.trim()}` });
    });
    lines.on('close', onEnd);
  }

  private expectLine(): void {
    clearTimeout(this.silenceTimer);
    this.silenceTimer = setTimeout(() => {
      this.onReport({
        observation: { kind: 'no-source' },
        at: Date.now(),
        reason: `phc2sys: no CLOCK_REALTIME line from ${this.source} for ${SILENCE_MS / 1000} s`,
      });
    }, SILENCE_MS);
  }

  /** The source ended: said once; a command is started again, standard input cannot be. */
  private ended(why: string): void {
    if (!this.running || this.restartTimer) return;
    this.onReport({ observation: { kind: 'no-source' }, at: Date.now(), reason: `phc2sys: ${why}` });
    if (this.source === '-') return;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.running) this.open();
    }, RESTART_MS);
  }
}
