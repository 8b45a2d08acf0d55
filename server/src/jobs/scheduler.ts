import type { ActionScheduler } from '../app/ports.js';
import type { Sql } from '../persistence/db.js';
import type { JobQueue } from './queue.js';
import { QUEUES } from './queue.js';

/** Channel on which workers hear of attempts due soon, to arm a precise timer. */
export const DUE_CHANNEL = 'sched_action_due';

/** Attempts due within this window are announced to workers' timers; later ones are found by the scan. */
export const ANNOUNCE_WINDOW_MS = 60_000;

/**
 * Durable scheduling: a pg-boss job at the due time, written in the caller's transaction, plus a NOTIFY
 * (delivered at commit) so a worker can arm a timer and fire on the millisecond instead of the next poll.
 */
export function createActionScheduler(
  queue: JobQueue,
  clock: () => Date = () => new Date(),
): ActionScheduler {
  return {
    async schedule(tx: Sql, actionId: string, dueAt: Date) {
      await queue.send(QUEUES.actionDue, { actionId }, { startAfter: dueAt, tx });
      if (dueAt.getTime() - clock().getTime() <= ANNOUNCE_WINDOW_MS) {
        await tx.query('select pg_notify($1, $2)', [DUE_CHANNEL, `${actionId},${dueAt.getTime()}`]);
      }
    },
  };
}
