import type { Clock, Timers } from './ports.js';

/** The process's clock: wall time. main.ts builds the use cases and triggers on it; tests pass a manual one. */
export const systemClock: Clock = () => new Date();

/** The process's timers: Node's, kept alive while pending (a trigger armed for an attempt must fire). */
export const systemTimers: Timers = {
  after(ms, fn) {
    const handle = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(handle) };
  },
};

/**
 * A stopwatch on the process's monotonic time, for work budgets (a retention run, a bulk run's page loop): a budget
 * bounds the real time a job holds its worker, which neither a test's manual clock nor a wall-clock jump may stretch.
 */
export function stopwatch(): () => number {
  const started = performance.now();
  return () => performance.now() - started;
}

/**
 * Resolves after `ms` of real time without keeping the process alive: the deadline a stopping trigger gives the work
 * in hand. It stays off the `Timers` port on purpose: a shutdown must end by its deadline even under a manual clock.
 */
export function realDeadline(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
