import { apiContract } from '@sched/contract';
import { pauseAction, resumeAction } from '../app/actions/pause.js';
import { rescheduleAction, runActionNow } from '../app/actions/reschedule.js';
import { BulkRunner } from '../app/bulk/runner.js';
import { bulkOperationsHandlers } from '../http/handlers/bulk-operations.js';
import {
  BULK_IDLE_SWEEP_MS,
  BULK_SWEEP_MS,
  createBulkOperationQueue,
  workBulkOperations,
} from '../jobs/bulk-operations.js';
import type { Feature } from './feature.js';

/** Bulk operations: a filter's actions cancelled, retried, replayed, paused, moved or run, page by page. */
export const bulkFeature: Feature = {
  name: 'bulk',
  async routes(_app, http, { shared }) {
    await http.contract(apiContract.bulkOperations, bulkOperationsHandlers(shared.bulkOperations));
  },
  async workers({ ctx, shutdown }) {
    const { config, clock, waits, logger } = ctx;
    const database = ctx.db.main;
    const bulkQueue = createBulkOperationQueue(ctx.queue);
    const { actionChanges, replays, pauseDeps } = ctx;
    const moveDeps = {
      scheduler: ctx.scheduler,
      callbacks: ctx.callbacks,
      clock,
      allowPrivateDestinations: config.allowPrivateDestinations,
    };
    const bulkRunner = new BulkRunner({
      store: database,
      clock,
      waits,
      ops: {
        cancel: (db, rows, now) => actionChanges.cancelRows(db, rows, now),
        retry: async (db, row, now) => void (await actionChanges.retryRow(db, row, now)),
        replay: async (db, owner, row, overrides) => (await replays.replayRow(db, owner, row, overrides)).id,
        pause: async (db, row, input, via) =>
          void (await pauseAction(pauseDeps, db, row.account_id, row.id, input, { via })),
        resume: async (db, row, input, via) =>
          void (await resumeAction(pauseDeps, db, row.account_id, row.id, input, { via })),
        reschedule: async (db, owner, row, offsetMs, via) => {
          const due = row.next_attempt_at ?? row.scheduled_for;
          const body = { scheduled_for: new Date(due.getTime() + offsetMs).toISOString() };
          await rescheduleAction(moveDeps, db, owner, row.id, body, { via });
        },
        run: async (db, row, input, via) =>
          void (await runActionNow(moveDeps, db, row.account_id, row.id, input, { via })),
      },
      handOn: (id) => bulkQueue.enqueue(database.sql, id),
      events: ctx.operatorEvents,
    });
    const bulk = await workBulkOperations(
      ctx.queue,
      bulkRunner,
      logger,
      { everyMs: waits.wait(BULK_SWEEP_MS, 500), idleMs: waits.wait(BULK_IDLE_SWEEP_MS, 500) },
      ctx.timers,
    );
    // A run in progress ends after its page as soon as shutting down begins, so another worker carries on at once.
    shutdown.add('the bulk-operation runs', () => bulk.stopRuns(), { first: true });
    return [bulk.worker];
  },
};
