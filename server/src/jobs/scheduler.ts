import type { ActionScheduler, Clock, Store } from '../app/ports.js';
import { assertTransition } from '../domain/action/states.js';
import { ANNOUNCE_WINDOW_MS, withinAnnounceWindow } from '../domain/schedule/window.js';
import type { Sql } from '../persistence/database.js';
import { markJobWritten, takeEnteringWindow } from '../persistence/schedule.js';
import type { JobQueue } from './queue.js';
import { QUEUES } from './queue.js';

/** Channel on which workers hear of attempts due soon, to arm a precise timer. */
export const DUE_CHANNEL = 'sched_action_due';

// Entering the window is the "schedule resolved" event of 3.1 for a `scheduled` action; a `resolved` one (a retry,
// a next occurrence) keeps its state and only gets its job.
const PROMOTED_TO = assertTransition('scheduled', 'resolve');

/** At most this many attempts are enqueued per statement of the scan; a fuller window is taken in several turns. */
const ENQUEUE_BATCH = 2_000;

interface EnteringAttempt {
  id: string;
  accountId: string;
  dueMs: number;
}

export interface WindowScheduler extends ActionScheduler {
  /**
   * Writes the jobs of attempts that have come within the window since the last scan (and promotes `scheduled`
   * actions to `resolved`), in one transaction per batch; answers every attempt it touched, for timers.
   */
  enqueueEntering(store: Store): Promise<EnteringAttempt[]>;
}

/**
 * Durable scheduling. `job_due_at` records the due time a job was written for, so a row's job is written exactly
 * once per due time: by `schedule` when that time is already within the window (with a NOTIFY, delivered at
 * commit, so a worker arms a timer at once), otherwise by the scan when it comes within it. The `actions` table
 * stays the only source of truth: a restart loses nothing, because the next scan finds whatever has no job yet.
 */
export function createActionScheduler(queue: JobQueue, clock: Clock): WindowScheduler {
  return {
    async schedule(db: Sql, actionId: string, dueAt: Date) {
      // Beyond the look-ahead window (domain/schedule/window.ts), the scan writes the job when the time comes near.
      if (!withinAnnounceWindow(dueAt, clock())) return;
      const accountId = await markJobWritten(db, { actionId, dueAt, channel: DUE_CHANNEL });
      if (accountId === null) return;
      await queue.send(QUEUES.actionDue, { actionId, accountId }, { startAfter: dueAt, db });
    },

    async enqueueEntering(store) {
      const touched: EnteringAttempt[] = [];
      for (;;) {
        const batch = await store.transaction(async (db) => {
          const now = clock();
          const rows = await takeEnteringWindow(db, {
            until: new Date(now.getTime() + ANNOUNCE_WINDOW_MS),
            now,
            promoteTo: PROMOTED_TO,
            limit: ENQUEUE_BATCH,
          });
          const jobs = rows.filter((r) => r.needs_job);
          if (jobs.length > 0)
            await queue.sendMany(
              QUEUES.actionDue,
              jobs.map((r) => ({ data: { actionId: r.id, accountId: r.account_id }, startAfter: r.due })),
              db,
            );
          return rows;
        });
        for (const r of batch) touched.push({ id: r.id, accountId: r.account_id, dueMs: r.due.getTime() });
        if (batch.length < ENQUEUE_BATCH) return touched;
      }
    },
  };
}
