import type { Logger } from 'pino';
import { systemTimers } from '../app/clock.js';
import type { Timers } from '../app/ports.js';

/**
 * A use case run again `intervalMs` after each run ends (never two at once in one process), until stopped: the audit
 * sealer, the failed inbox's fold, the bulk sweep. Thin: the work and its rules are the use case's. A failure is
 * logged (a database outage once, by the availability tracker) and the next run comes as usual.
 *
 * With `idle`, a run that found nothing to do doubles the wait before the next (up to `idleIntervalMs`), and one that
 * found work brings it back to `intervalMs`: an idle server pays for a statement now and then instead of every
 * interval. `soon()` brings a backed-off wait back to `intervalMs` (something to do was announced); `now()` runs at
 * once.
 */
export class PeriodicLoop<T = unknown> {
  private timer: { cancel(): void } | undefined;
  private stopped = false;
  private running: Promise<unknown> | undefined;
  /** The wait armed after the last run. */
  private waitMs: number;
  /** `now()` or `soon()` was called during a run: the wait after it is none, or the base one. */
  private asked: 'now' | 'soon' | undefined;

  constructor(
    private readonly o: {
      run: () => Promise<T>;
      /** What the run does, for the log: "<what> failed". */
      what: string;
      intervalMs: number;
      /** Whether a run's answer means it found nothing to do (the wait backs off then, up to `idleIntervalMs`). */
      idle?: (result: T) => boolean;
      idleIntervalMs?: number;
      logger: Logger;
      timers?: Timers;
      /** Records database faults (an outage is logged once there); other errors are logged here. */
      availability?: { absorbs(err: unknown): boolean };
    },
  ) {
    this.waitMs = o.intervalMs;
  }

  start(): void {
    this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.running;
  }

  /** The next run comes within `intervalMs`, however long the loop has backed off. */
  soon(): void {
    if (this.stopped) return;
    if (this.timer === undefined) {
      this.asked ??= 'soon';
      return;
    }
    if (this.waitMs <= this.o.intervalMs) return;
    this.rearm(this.o.intervalMs);
  }

  /** Runs at once (after the run under way, if any). */
  now(): void {
    if (this.stopped) return;
    if (this.timer === undefined) {
      this.asked = 'now';
      return;
    }
    this.timer.cancel();
    this.timer = undefined;
    this.loop();
  }

  private rearm(ms: number): void {
    this.timer?.cancel();
    this.waitMs = ms;
    this.timer = (this.o.timers ?? systemTimers).after(ms, () => {
      this.timer = undefined;
      this.loop();
    });
  }

  private next(result: { ok: true; value: T } | { ok: false }): number {
    const { intervalMs, idle, idleIntervalMs } = this.o;
    if (!result.ok || !idle || idleIntervalMs === undefined || !idle(result.value)) return intervalMs;
    return Math.min(idleIntervalMs, Math.max(intervalMs, this.waitMs * 2));
  }

  private loop(): void {
    if (this.stopped) return;
    this.running = this.o
      .run()
      .then(
        (value) => this.next({ ok: true, value }),
        (err: unknown) => {
          if (!this.o.availability?.absorbs(err)) this.o.logger.warn({ err }, `${this.o.what} failed`);
          return this.next({ ok: false });
        },
      )
      .then((ms) => {
        if (this.stopped) return;
        const asked = this.asked;
        this.asked = undefined;
        if (asked === 'now') return this.loop();
        this.rearm(asked === 'soon' ? Math.min(ms, this.o.intervalMs) : ms);
      });
  }
}
