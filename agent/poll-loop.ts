import { Pause } from './pause';

/**
 * Polls a daemon until stopped: one poll, then a pause of `pollMs` that `wake()` cuts short (a
 * pushed change), then the next. The watchers of ptp4l and chronyd run one each; each checks
 * `running` after its poll's await, since a stop may come while a poll is under way.
 */
export class PollLoop {
  private active = false;
  private readonly pause = new Pause();

  constructor(
    private readonly pollMs: number,
    private readonly poll: () => Promise<void>,
  ) {}

  get running(): boolean {
    return this.active;
  }

  start(): void {
    this.active = true;
    void this.loop();
  }

  stop(): void {
    this.active = false;
    this.pause.wake();
  }

  /** Polls at once rather than after the pause under way. */
  wake(): void {
    this.pause.wake();
  }

  private async loop(): Promise<void> {
    while (this.active) {
      await this.poll();
      if (!this.active) return;
      await this.pause.for(this.pollMs);
    }
  }
}
