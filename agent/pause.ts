/**
 * A wait that ends after its time or as soon as `wake()` is called, whichever comes first: the
 * pause between a loop's polls or retries, cut short by a pushed change, new work or a stop.
 */
export class Pause {
  private wakeCurrent: (() => void) | undefined;

  for(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeCurrent = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeCurrent = done;
    });
  }

  /** Ends the wait under way, if there is one. */
  wake(): void {
    this.wakeCurrent?.();
  }
}
