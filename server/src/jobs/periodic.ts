import type { Logger } from 'pino';
import { systemTimers } from '../app/clock.js';
import type { Timers } from '../app/ports.js';

/**
 * A use case run again `intervalMs` after each run ends (never two at once in one process), until stopped: the audit
 * sealer, the failed inbox's fold. Thin: the work and its rules are the use case's. A failure is logged (a database
 * outage once, by the availability tracker) and the next run comes as usual.
 */
export class PeriodicLoop {
  private timer: { cancel(): void } | undefined;
  private stopped = false;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly o: {
      run: () => Promise<unknown>;
      /** What the run does, for the log: "<what> failed". */
      what: string;
      intervalMs: number;
      logger: Logger;
      timers?: Timers;
      /** Records database faults (an outage is logged once there); other errors are logged here. */
      availability?: { absorbs(err: unknown): boolean };
    },
  ) {}

  start(): void {
    this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.running;
  }

  private loop(): void {
    if (this.stopped) return;
    this.running = this.o
      .run()
      .catch((err: unknown) => {
        if (!this.o.availability?.absorbs(err)) this.o.logger.warn({ err }, `${this.o.what} failed`);
      })
      .finally(() => {
        if (!this.stopped)
          this.timer = (this.o.timers ?? systemTimers).after(this.o.intervalMs, () => this.loop());
      });
  }
}
