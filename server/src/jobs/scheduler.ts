import type { ActionScheduler } from '../app/ports.js';
import { assertTransition } from '../domain/action/states.js';
import { asDate, type Sql } from '../persistence/db.js';
import type { JobQueue } from './queue.js';
import { QUEUES } from './queue.js';

/** Channel on which workers hear of attempts due soon, to arm a precise timer. */
export const DUE_CHANNEL = 'sched_action_due';

/**
 * The look-ahead window. An attempt due within it has its pg-boss job and is announced to workers' timers; a later
 * one waits in `actions` alone until the scan brings it into the window. The job queue so holds about a minute of
 * work whatever the backlog, and a create due in a year writes one row, not a row and a job.
 */
export const ANNOUNCE_WINDOW_MS = 60_000;

// Entering the window is the "schedule resolved" event of 3.1 for a `scheduled` action; a `resolved` one (a retry,
// a next occurrence) keeps its state and only gets its job.
const PROMOTED_TO = assertTransition('scheduled', 'resolve');

/** At most this many attempts are enqueued per statement of the scan; a fuller window is taken in several turns. */
const ENQUEUE_BATCH = 2_000;

export interface EnteringAttempt {
  id: string;
  dueMs: number;
}

export interface WindowScheduler extends ActionScheduler {
  /**
   * Writes the jobs of attempts that have come within the window since the last scan (and promotes `scheduled`
   * actions to `resolved`), in one transaction; answers every attempt it touched, for timers.
   */
  enqueueEntering(db: {
    transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  }): Promise<EnteringAttempt[]>;
}

/**
 * Durable scheduling. `job_due_at` records the due time a job was written for, so a row's job is written exactly
 * once per due time: by `schedule` when that time is already within the window (with a NOTIFY, delivered at
 * commit, so a worker arms a timer at once), otherwise by the scan when it comes within it. The `actions` table
 * stays the only source of truth: a restart loses nothing, because the next scan finds whatever has no job yet.
 */
export function createActionScheduler(
  queue: JobQueue,
  clock: () => Date = () => new Date(),
): WindowScheduler {
  const writesAt = (dueAt: Date) => dueAt.getTime() - clock().getTime() <= ANNOUNCE_WINDOW_MS;
  return {
    writesAt,
    async schedule(tx: Sql, actionId: string, dueAt: Date) {
      if (!writesAt(dueAt)) return;
      await queue.send(QUEUES.actionDue, { actionId }, { startAfter: dueAt, tx });
      await tx.query(
        `with marked as (update actions set job_due_at = $3 where id = $1)
         select pg_notify($2, $1 || ',' || $4)`,
        [actionId, DUE_CHANNEL, dueAt, String(dueAt.getTime())],
      );
    },

    async enqueueEntering(db) {
      const touched: EnteringAttempt[] = [];
      for (;;) {
        const batch = await db.transaction(async (tx) => {
          // Locked rows are someone else's transition in progress (a claim, a cancel): the next scan sees them.
          // The constants are literals, not parameters: a generic plan of this prepared statement must still be able
          // to use the partial index actions_due_index (with a parameter in `status in (...)` it scans the table).
          const rows = await tx.query<{ id: string; due: Date | string; needs_job: boolean }>(
            `with entering as (
               select id, next_attempt_at, job_due_at is distinct from next_attempt_at as needs_job
                 from actions
                where status in ('scheduled', '${PROMOTED_TO}')
                  and next_attempt_at <= now() + interval '${ANNOUNCE_WINDOW_MS} milliseconds'
                  and (status = 'scheduled' or job_due_at is distinct from next_attempt_at)
                order by next_attempt_at
                limit ${ENQUEUE_BATCH}
                  for update skip locked
             )
             update actions a set status = '${PROMOTED_TO}', job_due_at = e.next_attempt_at, updated_at = now()
               from entering e where a.id = e.id
             returning a.id, e.next_attempt_at as due, e.needs_job`,
          );
          const jobs = rows.filter((r) => r.needs_job);
          if (jobs.length > 0)
            await queue.sendMany(
              QUEUES.actionDue,
              jobs.map((r) => ({ data: { actionId: r.id }, startAfter: asDate(r.due) })),
              tx,
            );
          return rows;
        });
        for (const r of batch) touched.push({ id: r.id, dueMs: asDate(r.due).getTime() });
        if (batch.length < ENQUEUE_BATCH) return touched;
      }
    },
  };
}
