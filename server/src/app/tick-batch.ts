/**
 * Group commit for one kind of statement: the calls made during one turn of the event loop (timers that fire at the
 * same moment, a pg-boss batch of jobs, attempts whose responses arrive together) go to PostgreSQL as one statement
 * over all their items, flushed on `setImmediate`. A round trip costs the server a write and a read system call and
 * PostgreSQL a parse-bind-execute whatever the number of rows, so under load this is most of the cost saved; an
 * item alone waits only for the end of the current turn. With `waitMs`, a batch also gathers the calls of the next
 * few milliseconds (flushed at `maxItems` or `waitMs` after its first item, whichever comes first): at moderate
 * rates, when calls arrive one per turn, that turns one statement per call into one per few milliseconds.
 *
 * `run` answers one result per item, in order. When it fails, each item is tried again on its own, so one bad item
 * (or a deadlock between two batches) costs only itself.
 */
export class TickBatch<I, O> {
  private pending: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private running = 0;
  private readonly underWay = new Set<Promise<void>>();
  /** Items added and items handed to a batch, ever: what `drain` waits for is the items added before it. */
  private added = 0;
  private sent = 0;
  private timer: NodeJS.Timeout | null = null;
  /**
   * The pending items' wait is over (their time came, or they filled a batch) but `maxRunning` batches were under
   * way: they go when one ends. Items that are still gathering do not: a batch ending early must not cut their wait
   * short, or under a steady stream every batch would carry only what arrived during the one before it.
   */
  private overdue = false;

  /**
   * `maxRunning`: batches under way at once; past it, items wait for one to end and go together in the next (under
   * load, fewer and larger statements). `waitMs`: how long the first item of a batch waits for others (0: the end of
   * the turn).
   */
  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxItems = 500,
    private readonly maxRunning = Number.POSITIVE_INFINITY,
    private readonly waitMs = 0,
  ) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      if (this.pending.length === 0) {
        if (this.waitMs > 0) this.timer ??= setTimeout(() => this.flush(), this.waitMs);
        else setImmediate(() => this.flush());
      }
      this.pending.push({ item, resolve, reject });
      this.added += 1;
      if (this.pending.length >= this.maxItems) this.flush();
    });
  }

  /**
   * Sends what is pending at once (a `waitMs` batch need not wait it out) and resolves when every item added before
   * the call has settled; items added later do not hold it up, so it ends under a steady stream of calls.
   */
  async drain(): Promise<void> {
    const upTo = this.added;
    this.flush();
    // Past `maxRunning`, the rest go as batches end.
    while (this.sent < upTo) {
      await Promise.race(this.underWay);
      this.flush();
    }
    await Promise.all([...this.underWay]);
  }

  private flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    while (this.pending.length > 0 && this.running < this.maxRunning) {
      const batch = this.pending.slice(0, this.maxItems);
      this.pending = this.pending.slice(batch.length);
      this.sent += batch.length;
      this.running += 1;
      const settled: Promise<void> = this.settle(batch).finally(() => {
        this.running -= 1;
        this.underWay.delete(settled);
        if (this.overdue) this.flush();
      });
      this.underWay.add(settled);
    }
    this.overdue = this.pending.length > 0;
  }

  private async settle(batch: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[]) {
    try {
      const results = await this.run(batch.map((p) => p.item));
      if (results.length !== batch.length) throw new Error('a batch must answer one result per item');
      for (const [i, p] of batch.entries()) p.resolve(results[i] as O);
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      await Promise.all(batch.map((p) => this.settle([p])));
    }
  }
}
