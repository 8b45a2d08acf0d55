import { beyondSkewLimit, CLOCK_SKEW_LIMIT_MS, clockSkew } from '../domain/action/clock-skew.js';
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

/**
 * Reads the database's clock against this process's (`clock`), sets the gauge, and says when the two drift apart
 * past the limit (a warning, once) and when they agree again: claims and reads of what is in flight compare times
 * taken by different processes' clocks, so an unsynchronised host is worth an operator's attention.
 */
export class ClockSkewWatch {
  private apart = false;

  constructor(
    private readonly o: {
      readDatabaseClock: () => Promise<Date>;
      clock: Clock;
      gauge: { set(seconds: number): void };
      log: { warn(fields: object, message: string): void; info(fields: object, message: string): void };
    },
  ) {}

  async check(): Promise<{ skewMs: number; uncertaintyMs: number; beyond: boolean }> {
    const sentAtMs = this.o.clock().getTime();
    const databaseMs = (await this.o.readDatabaseClock()).getTime();
    const reading = { sentAtMs, databaseMs, receivedAtMs: this.o.clock().getTime() };
    const { skewMs, uncertaintyMs } = clockSkew(reading);
    const beyond = beyondSkewLimit(reading);
    this.o.gauge.set(skewMs / 1000);
    const fields = {
      skewMs: Math.round(skewMs),
      uncertaintyMs: Math.round(uncertaintyMs),
      limitMs: CLOCK_SKEW_LIMIT_MS,
    };
    if (beyond && !this.apart)
      this.o.log.warn(
        fields,
        "this worker's clock and the database's are apart past the limit: synchronise the host's clock (NTP)",
      );
    else if (!beyond && this.apart)
      this.o.log.info(fields, "this worker's clock agrees with the database's again");
    this.apart = beyond;
    return { skewMs, uncertaintyMs, beyond };
  }
}
