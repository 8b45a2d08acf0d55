/**
 * The look-ahead window. An attempt due within it has its pg-boss job and is announced to workers' timers; a later
 * one waits in `actions` alone until the scan brings it into the window. The job queue so holds about a minute of
 * work whatever the backlog, and a create due in a year writes one row, not a row and a job.
 */
export const ANNOUNCE_WINDOW_MS = 60_000;

/** Whether an attempt due at `dueAt` is within the look-ahead window at `now` (its job is written at once). */
export function withinAnnounceWindow(dueAt: Date, now: Date): boolean {
  return dueAt.getTime() - now.getTime() <= ANNOUNCE_WINDOW_MS;
}
