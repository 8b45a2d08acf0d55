import type { Logger } from 'pino';
import type { AuditSealer } from '../app/audit.js';
import type { Timers } from '../app/ports.js';
import { PeriodicLoop } from './periodic.js';

/** How often the pending audit events are chained; a read of the log chains its account's at once anyway. */
const AUDIT_SEAL_INTERVAL_MS = 1_000;

/**
 * The audit sealer's trigger: every second, one pass of `AuditSealer.sealAll` (app/audit.ts), so pending events are
 * chained soon after their change commits even when nobody reads the log. Any number of workers may run it at once
 * (the account's head lock serialises them).
 */
export class AuditSealerLoop extends PeriodicLoop {
  constructor(o: {
    sealer: Pick<AuditSealer, 'sealAll'>;
    logger: Logger;
    timers?: Timers;
    availability?: { absorbs(err: unknown): boolean };
    intervalMs?: number;
  }) {
    super({
      run: () => o.sealer.sealAll(),
      what: 'audit sealing',
      intervalMs: o.intervalMs ?? AUDIT_SEAL_INTERVAL_MS,
      logger: o.logger,
      ...(o.timers ? { timers: o.timers } : {}),
      ...(o.availability ? { availability: o.availability } : {}),
    });
  }
}
