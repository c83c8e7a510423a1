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
import type { OsClockReport } from './chronyd';
import { LineSource } from './line-source';
import type { OsClockObservation } from './states';

const SILENCE_MS = 3000;

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
  private silenceTimer: NodeJS.Timeout | undefined;
  private readonly lines: LineSource;

  constructor(
    /** `-`, `journal:<unit>` or a file's path. */
    private readonly source: string,
    private readonly onReport: (report: OsClockReport) => void,
  ) {
    this.lines = new LineSource(
      source,
      (line) => {
        const observation = readPhc2sysLine(line);
        if (!observation || !this.running) return;
        this.expectLine();
        this.onReport({ observation, at: Date.now(), reason: `phc2sys: ${line.trim()}` });
      },
      // The source ended: said once; a command is started again, standard input cannot be.
      (why) =>
        this.onReport({ observation: { kind: 'no-source' }, at: Date.now(), reason: `phc2sys: ${why}` }),
    );
  }

  start(): void {
    this.running = true;
    this.expectLine();
    this.lines.start();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.silenceTimer);
    this.lines.stop();
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
}
