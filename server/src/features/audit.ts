import { apiContract } from '@sched/contract';
import { AuditSealer, AuditService } from '../app/audit.js';
import { auditHandlers, registerAuditExport } from '../http/handlers/audit.js';
import { AUDIT_SEAL_IDLE_MS, AuditSealerLoop } from '../jobs/audit-sealer.js';
import type { Feature } from './feature.js';

/** The audit log: its events and streamed export, and the loop that chains pending events (hash chain). */
export const auditFeature: Feature = {
  name: 'audit',
  async routes(_app, http, { ctx }) {
    const audit = new AuditService(ctx.db.main, ctx.clock, ctx.reads);
    await http.contract(apiContract.audit, auditHandlers(audit), (scope) =>
      registerAuditExport(scope, audit),
    );
  },
  async workers({ ctx }) {
    const { db } = ctx;
    const loop = new AuditSealerLoop({
      sealer: new AuditSealer(db.audit ?? db.main),
      logger: ctx.logger,
      timers: ctx.timers,
      availability: db.availability,
      idleIntervalMs: ctx.waits.wait(AUDIT_SEAL_IDLE_MS, 1_000),
    });
    loop.start();
    return [{ stop: () => loop.stop() }];
  },
};
