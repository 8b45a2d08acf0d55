/**
 * The due index holds only the pending attempts due in the next few days, not the whole future: an action due in
 * three weeks costs its create no entry there, and a large backlog's creates stop landing on random leaves of an index
 * as large as the backlog (each such leaf costs a full-page image in the WAL after every checkpoint).
 *
 * The index is partial, bounded by a fixed instant: the start of a UTC day three days after the day it is built.
 * A job builds the next day's index each day (persistence/due-index.ts) and drops the one no query can use any more.
 * Every query that reads the due index says `next_attempt_at < horizon` with the horizon two days after today's
 * start, so the index built yesterday and the one built today both serve it (a day's build may be late by up to a
 * day); and since every such query asks only for attempts due before now plus a few seconds, the bound never hides an
 * attempt from it: rows due past the horizon are simply not due yet.
 */

const DAY_MS = 86_400_000;

/**
 * The furthest ahead of its due time an attempt may be claimed (the firing loop's lead and window, at most): an attempt
 * in flight at `now` was due before `now` plus this, and so is found in the due index, where its claim left it.
 */
export const MAX_CLAIM_AHEAD_MS = 500;

/** How many days past the start of the day it is built for a due index reaches. */
export const DUE_INDEX_DAYS = 3;

/** The first instant (UTC) of the day holding `at`. */
export function dayStart(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/** What every query of the due index states at `now`: attempts due before this instant. */
export function dueQueryHorizon(now: Date): Date {
  return new Date(dayStart(now).getTime() + (DUE_INDEX_DAYS - 1) * DAY_MS);
}

/** The bound of the due index built at `now`. */
export function dueIndexBound(now: Date): Date {
  return new Date(dayStart(now).getTime() + DUE_INDEX_DAYS * DAY_MS);
}

/** The due indexes a table has: the bounded ones (an interrupted build leaves one invalid) and the unbounded one. */
export interface DueIndexes {
  bounded: readonly { bound: Date; valid: boolean }[];
  unbounded: boolean;
}

/**
 * What the job does at `now`: build today's index when it has no valid one, then drop the indexes that serve no query
 * (invalid ones, and bounds before the query horizon), and the unbounded index of an older database or a fresh one.
 * The drops follow the build: the unbounded index goes only once an index serving today's queries exists.
 */
export function dueIndexPlan(
  now: Date,
  have: DueIndexes,
): { build: Date | null; drop: Date[]; dropUnbounded: boolean } {
  const bound = dueIndexBound(now).getTime();
  const horizon = dueQueryHorizon(now).getTime();
  const build = have.bounded.some((i) => i.valid && i.bound.getTime() === bound) ? null : new Date(bound);
  const drop = have.bounded
    .filter((i) => !i.valid || i.bound.getTime() < horizon)
    .filter((i) => i.bound.getTime() !== build?.getTime())
    .map((i) => i.bound)
    .sort((a, b) => a.getTime() - b.getTime());
  return { build, drop, dropUnbounded: have.unbounded };
}
