/**
 * The look-ahead window. An attempt scheduled due within it is announced to the workers (a NOTIFY), so the one that
 * owns it wakes in time; a later one waits in `actions` alone, and its worker's scan of the due index finds it before
 * it falls due (entering the window is also when a `scheduled` action becomes `resolved`).
 */
export const ANNOUNCE_WINDOW_MS = 60_000;

/** Whether an attempt due at `dueAt` is within the look-ahead window at `now` (it is announced at once). */
export function withinAnnounceWindow(dueAt: Date, now: Date): boolean {
  return dueAt.getTime() - now.getTime() <= ANNOUNCE_WINDOW_MS;
}
