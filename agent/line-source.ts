/**
 * The lines a daemon writes, from wherever they go: standard input (`-`), a file (`tail -F`,
 * through rotation) or a systemd unit's journal (`journal:<unit>`, `journalctl --follow`). A
 * command that ends is started again a second later; standard input cannot be. phc2sys's offset
 * lines and synce4l's log come this way.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

const RESTART_MS = 1000;

export class LineSource {
  private running = false;
  private child: ChildProcess | undefined;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    /** `-`, `journal:<unit>` or a file's path. */
    private readonly source: string,
    private readonly onLine: (line: string) => void,
    /** The source ended (said once per end), with why. */
    private readonly onEnded: (why: string) => void,
  ) {}

  start(): void {
    this.running = true;
    this.open();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.restartTimer);
    this.child?.kill();
  }

  /**
   * What the source already holds (the file, the unit's journal since boot), for what a daemon
   * said at its start; nothing for standard input, whose lines all come through `onLine`.
   */
  async history(): Promise<string[]> {
    if (this.source === '-') return [];
    try {
      const text = this.source.startsWith('journal:')
        ? await new Promise<string>((resolve, reject) =>
            execFile(
              'journalctl',
              ['--boot', '--output=cat', `--unit=${this.source.slice(8)}`],
              { maxBuffer: 64 * 1024 * 1024 },
              (error, stdout) => (error ? reject(error) : resolve(stdout)),
            ),
          )
        : await readFile(this.source, 'utf8');
      return text.split('\n');
    } catch {
      return [];
    }
  }

  private open(): void {
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
      if (this.running) this.onLine(line);
    });
    lines.on('close', onEnd);
  }

  private ended(why: string): void {
    if (!this.running || this.restartTimer) return;
    this.onEnded(why);
    if (this.source === '-') return;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.running) this.open();
    }, RESTART_MS);
  }
}
