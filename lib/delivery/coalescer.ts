/**
 * Gathers the calls made in one turn of the event loop into one batch call: the attempts of a
 * queue batch ask for their subscriptions and leases together, and the POSTs that finish together
 * complete together, while one that hangs holds back no other. Each call gets its own item's
 * result, so one item's failure fails only its own caller.
 */
export class Coalescer<In, Out> {
  private pending: { input: In; resolve: (value: Out) => void; reject: (reason: unknown) => void }[] = [];

  constructor(private readonly runBatch: (inputs: In[]) => Promise<PromiseSettledResult<Out>[]>) {}

  run(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.flush());
      this.pending.push({ input, resolve, reject });
    });
  }

  private flush(): void {
    const calls = this.pending;
    this.pending = [];
    this.runBatch(calls.map((call) => call.input)).then(
      (results) =>
        calls.forEach((call, i) => {
          const result = results[i];
          if (result?.status === 'fulfilled') call.resolve(result.value);
          else call.reject(result ? result.reason : new Error('the batch call gave no result for this item'));
        }),
      (error: unknown) => {
        for (const call of calls) call.reject(error);
      },
    );
  }
}
