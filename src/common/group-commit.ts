interface Pending<T, R> {
  readonly item: T;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

// One transaction for many callers; each caller's promise settles once its batch committed. A failed batch is written
// again item by item, so one bad write fails only its own caller.
export class GroupCommit<T, R> {
  private pending: Pending<T, R>[] = [];
  private inFlight?: Promise<void>;

  constructor(
    private readonly write: (items: readonly T[]) => Promise<readonly R[]>,
    private readonly maxBatch = 256,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.inFlight ??= this.drain();
    });
  }

  private async writeOne(entry: Pending<T, R>): Promise<void> {
    try {
      entry.resolve((await this.write([entry.item]))[0]);
    } catch (error) {
      entry.reject(error);
    }
  }

  private async drain(): Promise<void> {
    // Lets callers of the same tick join the first batch rather than each starting one.
    await Promise.resolve();
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, this.maxBatch);
      try {
        const results = await this.write(batch.map((entry) => entry.item));
        batch.forEach((entry, i) => entry.resolve(results[i]));
      } catch (error) {
        if (batch.length === 1) batch[0].reject(error);
        else for (const entry of batch) await this.writeOne(entry);
      }
    }
    this.inFlight = undefined;
  }
}
