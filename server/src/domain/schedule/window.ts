/**
 * When an attempt is looked at ahead of its due time. A worker reads the earliest due time of its share of the due
 * index every second (jobs/dispatcher.ts), so an attempt scheduled further ahead than a few of those reads is found
 * in time by one of them; only one due sooner is announced to the workers (a NOTIFY), which keeps a create or a
 * retry from notifying every worker of every attempt. Separately, entering the resolve window is when a `scheduled`
 * action becomes `resolved` (the state table's "schedule resolved").
 */
export const ANNOUNCE_WINDOW_MS = 3_000;
export const RESOLVE_WINDOW_MS = 60_000;

/** Whether an attempt due at `dueAt` is to be announced when it is scheduled at `now`. */
export function withinAnnounceWindow(dueAt: Date, now: Date): boolean {
  return dueAt <= announceBefore(now);
}

/** The due time up to which an attempt scheduled at `now` is announced (for a statement that announces its rows). */
export function announceBefore(now: Date): Date {
  return new Date(now.getTime() + ANNOUNCE_WINDOW_MS);
}
