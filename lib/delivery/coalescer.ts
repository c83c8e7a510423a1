/**
 * Gathers the calls made in one turn of the event loop into one batch call: the attempts of a
 * queue batch ask for their subscriptions and leases together, and the POSTs that finish together
 * complete together, while one that hangs holds back no other. Each call gets its own item's
 * result, so one item's failure fails only its own caller.
 *
 * With `maxItems`, a batch call carries at most that many, and one runs at a time: the calls that
 * come meanwhile wait for it and go together in the next. That bounds the store requests one
 * process has in flight however many notifications it attempts at once (a deliver invocation's
 * ten packs are up to 250).
 */
export class Coalescer<In, Out> {
  private pending: { input: In; resolve: (value: Out) => void; reject: (reason: unknown) => void }[] = [];
  private scheduled = false;
  private running = 0;

  constructor(
    private readonly runBatch: (inputs: In[]) => Promise<PromiseSettledResult<Out>[]>,
    private readonly maxItems = Number.POSITIVE_INFINITY,
  ) {}

  run(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.pending.push({ input, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.pending.length === 0) return;
    // Bounded: the batch under way schedules the next when it ends.
    if (this.maxItems !== Number.POSITIVE_INFINITY && this.running > 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const calls = this.pending.splice(0, this.maxItems);
    if (calls.length === 0) return;
    this.running += 1;
    this.runBatch(calls.map((call) => call.input))
      .then(
        (results) =>
          calls.forEach((call, i) => {
            const result = results[i];
            if (result?.status === 'fulfilled') call.resolve(result.value);
            else
              call.reject(result ? result.reason : new Error('the batch call gave no result for this item'));
          }),
        (error: unknown) => {
          for (const call of calls) call.reject(error);
        },
      )
      .finally(() => {
        this.running -= 1;
        this.schedule();
      });
  }
}
