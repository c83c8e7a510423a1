/**
 * Follows chronyd through Debian's `chronyc`, its maintained client, in CSV mode (`-c`): every
 * poll one `chronyc -c -h <socket>` runs `tracking` (the system clock's offset) and `sources`
 * (which source, if any, is selected: `*`), read from its standard input. A chronyc that fails
 * or does not finish in time is a chronyd that does not answer.
 */
import { spawn } from 'node:child_process';
import { PollLoop } from './poll-loop';
import type { OsClockObservation } from './states';

/** chronyc waits about a second per try by itself; two seconds without an answer is no answer. */
const CHRONYC_TIMEOUT_MS = 2000;

export interface OsClockReport {
  readonly observation: OsClockObservation;
  readonly at: number;
  readonly reason: string;
}

export class ChronydWatcher {
  private readonly polling: PollLoop;

  constructor(
    /** chronyd's command socket, absolute (chronyc takes anything else for a host name). */
    private readonly socket: string,
    pollMs: number,
    private readonly onReport: (report: OsClockReport) => void,
  ) {
    this.polling = new PollLoop(pollMs, async () => {
      const report = await this.poll();
      if (this.polling.running) this.onReport(report);
    });
  }

  start(): void {
    this.polling.start();
  }

  stop(): void {
    this.polling.stop();
  }

  private async poll(): Promise<OsClockReport> {
    const answer = await chronyc(this.socket, ['tracking', 'sources']);
    const at = Date.now();
    if (!answer.ok) {
      return {
        observation: { kind: 'lost' },
        at,
        reason: `chronyd at ${this.socket} does not answer (chronyc: ${answer.error})`,
      };
    }
    return { ...readChronyc(answer.lines), at };
  }
}

/** From chronyc's CSV lines of `tracking` and `sources` to an observation. */
export function readChronyc(lines: readonly string[]): Omit<OsClockReport, 'at'> {
  const rows = lines.map((line) => line.split(','));
  // tracking: reference id, name, stratum, reference time, system time (the correction chronyd
  // would apply: negative while the clock is ahead), last offset, … leap status (14 fields).
  const tracking = rows.find((row) => row.length === 14);
  // sources: mode, state (`*` selected, `+` combined, `-` not combined, `?` unreachable,
  // `x` falseticker, `~` too variable), name, stratum, poll, reach, … (10 fields).
  const selected = rows.find((row) => row.length === 10 && row[1] === '*');
  const correction = Number(tracking?.[4]);
  // Nanoseconds to three decimals (decimal64.3), positive while the clock is ahead; never -0.
  const offsetNs = Number.isFinite(correction) ? Math.round(-correction * 1e12) / 1000 + 0 : undefined;
  if (selected && offsetNs !== undefined) {
    return {
      observation: { kind: 'synchronised', offsetNs },
      reason: `chronyd: selected source ${selected[2]}, system clock offset ${offsetNs} ns`,
    };
  }
  return {
    observation: offsetNs === undefined ? { kind: 'no-source' } : { kind: 'no-source', offsetNs },
    reason: 'chronyd: no selectable source',
  };
}

type ChronycAnswer = { ok: true; lines: string[] } | { ok: false; error: string };

/** Runs `chronyc -c -h <socket>` with `commands` on its standard input. */
export function chronyc(socket: string, commands: readonly string[]): Promise<ChronycAnswer> {
  return new Promise((resolve) => {
    const child = spawn('chronyc', ['-c', '-h', socket], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), CHRONYC_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ ok: false, error: error.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const lines = stdout.split('\n').filter(Boolean);
      // chronyc reports a daemon it cannot reach on standard error ("506 Cannot talk to daemon",
      // "Could not open connection to daemon") and exits 1.
      if (code === 0 && stderr.trim() === '') resolve({ ok: true, lines });
      else
        resolve({
          ok: false,
          error: signal ? `no answer within ${CHRONYC_TIMEOUT_MS} ms` : stderr.trim() || `exit ${code}`,
        });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(`${commands.join('\n')}\n`);
  });
}
