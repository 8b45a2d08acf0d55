import type { Logger } from 'pino';
import type { AuditSealer } from '../app/audit.js';
import { systemTimers } from '../app/clock.js';
import type { Timers } from '../app/ports.js';

/** How often the pending audit events are chained; a read of the log chains its account's at once anyway. */
const AUDIT_SEAL_INTERVAL_MS = 1_000;

/**
 * The audit sealer's trigger: every second, one pass of `AuditSealer.sealAll` (app/audit.ts), so pending events are
 * chained soon after their change commits even when nobody reads the log. Thin: the work and its rules are the use
 * case's; any number of workers may run it at once (the account's head lock serialises them).
 */
export class AuditSealerLoop {
  private timer: { cancel(): void } | undefined;
  private stopped = false;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly o: {
      sealer: Pick<AuditSealer, 'sealAll'>;
      logger: Logger;
      timers?: Timers;
      /** Records database faults (an outage is logged once there); other errors are logged here. */
      availability?: { absorbs(err: unknown): boolean };
      intervalMs?: number;
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
    this.running = this.o.sealer
      .sealAll()
      .catch((err: unknown) => {
        if (!this.o.availability?.absorbs(err)) this.o.logger.warn({ err }, 'audit sealing failed');
      })
      .finally(() => {
        if (!this.stopped)
          this.timer = (this.o.timers ?? systemTimers).after(
            this.o.intervalMs ?? AUDIT_SEAL_INTERVAL_MS,
            () => this.loop(),
          );
      });
  }
}
