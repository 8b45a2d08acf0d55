import type { Log } from '../app/ports.js';

/** A step that has run this long is named in a warning: an operator (and a test log) sees what a stop waits on. */
const SLOW_STEP_MS = 10_000;

interface Step {
  name: string;
  close: (graceful: boolean) => Promise<void>;
}

/**
 * What a start opened, closed by `stop`: each part registers its own close as it starts, so nothing is kept in a
 * hand-written list. Steps that stop taking work (the HTTP listener) run first, in the order registered; the rest
 * run in the reverse order of their start (the triggers before the queue and the connections they use).
 *
 * A stop is bounded: past `deadlineMs` the steps still running are named and left behind, so a process manager's
 * SIGTERM never meets a process that waits for ever on one stuck close (its own SIGKILL would then lose the log).
 */
export class Shutdown {
  private readonly first: Step[] = [];
  private readonly stack: Step[] = [];

  /** `close(graceful)`: graceful on `stop`; not after a failed start (finish nothing, just let go). */
  add(
    name: string,
    close: (graceful: boolean) => Promise<void> | void,
    opts: { first?: boolean } = {},
  ): void {
    (opts.first ? this.first : this.stack).push({ name, close: async (graceful) => close(graceful) });
  }

  /** Runs every step, even after one fails; rethrows the first failure once all have run, or at the deadline. */
  async run(graceful: boolean, opts: { deadlineMs?: number; log?: Log } = {}): Promise<void> {
    let current: Step | undefined;
    let currentSince = 0;
    const steps = (async () => {
      let failure: unknown;
      for (const step of [...this.first, ...[...this.stack].reverse()]) {
        current = step;
        currentSince = performance.now();
        const slow = setTimeout(
          () => opts.log?.warn({ step: step.name }, `shutdown: still waiting for ${step.name}`),
          SLOW_STEP_MS,
        );
        slow.unref();
        try {
          await step.close(graceful);
        } catch (err) {
          failure ??= err;
        } finally {
          clearTimeout(slow);
        }
      }
      current = undefined;
      if (failure !== undefined) throw failure;
    })();
    if (opts.deadlineMs === undefined) return steps;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const waited = Math.round(performance.now() - currentSince);
        reject(
          new Error(
            `shutdown did not finish within ${opts.deadlineMs} ms: ${current?.name ?? 'a step'} had run ${waited} ms`,
          ),
        );
      }, opts.deadlineMs);
      timer.unref();
    });
    try {
      await Promise.race([steps, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }
}
