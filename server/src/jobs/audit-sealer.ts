import type { Logger } from 'pino';
import { type AuditSealer, onAuditWritten } from '../app/audit.js';
import type { Timers } from '../app/ports.js';
import { PeriodicLoop } from './periodic.js';

/** How often the pending audit events are chained while there are some; a read of the log chains its account's first. */
const AUDIT_SEAL_INTERVAL_MS = 1_000;
/** The longest wait between passes that found nothing: what events written by another process (an API) may wait. */
export const AUDIT_SEAL_IDLE_MS = 16_000;

/**
 * The audit sealer's trigger: one pass of `AuditSealer.sealAll` (app/audit.ts) every second while passes find
 * events, so they are chained soon after their change commits even when nobody reads the log; passes that find none
 * back off up to `AUDIT_SEAL_IDLE_MS`, and events written by this process bring the pace back to a second at once.
 * Any number of workers may run it at once (the account's head lock serialises them).
 */
export class AuditSealerLoop extends PeriodicLoop<number> {
  private readonly unsubscribe: () => void;

  constructor(o: {
    sealer: Pick<AuditSealer, 'sealAll'>;
    logger: Logger;
    timers?: Timers;
    availability?: { absorbs(err: unknown): boolean };
    intervalMs?: number;
    idleIntervalMs?: number;
  }) {
    super({
      run: () => o.sealer.sealAll(),
      what: 'audit sealing',
      intervalMs: o.intervalMs ?? AUDIT_SEAL_INTERVAL_MS,
      idle: (sealed) => sealed === 0,
      idleIntervalMs: o.idleIntervalMs ?? AUDIT_SEAL_IDLE_MS,
      logger: o.logger,
      ...(o.timers ? { timers: o.timers } : {}),
      ...(o.availability ? { availability: o.availability } : {}),
    });
    this.unsubscribe = onAuditWritten(() => this.soon());
  }

  override async stop(): Promise<void> {
    this.unsubscribe();
    await super.stop();
  }
}
