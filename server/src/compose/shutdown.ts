/**
 * What a start opened, closed by `stop`: each part registers its own close as it starts, so nothing is kept in a
 * hand-written list. Steps that stop taking work (the HTTP listener) run first, in the order registered; the rest
 * run in the reverse order of their start (the triggers before the queue and the connections they use).
 */
export class Shutdown {
  private readonly first: ((graceful: boolean) => Promise<void>)[] = [];
  private readonly stack: ((graceful: boolean) => Promise<void>)[] = [];

  /** `close(graceful)`: graceful on `stop`; not after a failed start (finish nothing, just let go). */
  add(close: (graceful: boolean) => Promise<void> | void, opts: { first?: boolean } = {}): void {
    (opts.first ? this.first : this.stack).push(async (graceful) => close(graceful));
  }

  /** Runs every step, even after one fails; rethrows the first failure once all have run. */
  async run(graceful: boolean): Promise<void> {
    let failure: unknown;
    for (const step of [...this.first, ...[...this.stack].reverse()]) {
      try {
        await step(graceful);
      } catch (err) {
        failure ??= err;
      }
    }
    if (failure !== undefined) throw failure;
  }
}
