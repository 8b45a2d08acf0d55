/**
 * The attempt log (`delivery_attempts`) is partitioned by calendar month (UTC) of its time-ordered ids, so history
 * past retention leaves a month at a time, by dropping a partition, instead of row by row. This is the rule of which
 * months must exist and which may go; persistence/partitions.ts names and creates them.
 */

/** Months kept ahead of the current one, so an insert always finds its partition even if the job misses days. */
export const MONTHS_AHEAD = 2;

/** The first instant (UTC) of the month `offset` months from the one holding `at`. */
export function monthStart(at: Date, offset = 0): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1));
}

/** The months, by their first instant, that must have a partition at `now`: this one and the next `ahead`. */
export function monthsAhead(now: Date, ahead = MONTHS_AHEAD): Date[] {
  return Array.from({ length: ahead + 1 }, (_, i) => monthStart(now, i));
}

/**
 * What the partition job does at `now`, given the months that have a partition: create the months ahead that are
 * missing, and drop every month whose every attempt is past `keepDays` (the longest retention of any plan), that is
 * whose end is at or before `now - keepDays`. A month inside that span stays whole; rows of shorter-retention
 * accounts in it are deleted row by row by the retention pass.
 */
export function partitionPlan(
  now: Date,
  existing: readonly Date[],
  keepDays: number,
): { create: Date[]; drop: Date[] } {
  const have = new Set(existing.map((m) => m.getTime()));
  const create = monthsAhead(now).filter((m) => !have.has(m.getTime()));
  const horizon = now.getTime() - keepDays * 86_400_000;
  const drop = existing
    .filter((m) => monthStart(m, 1).getTime() <= horizon)
    .sort((a, b) => a.getTime() - b.getTime());
  return { create, drop };
}

/**
 * The cutoff before which a plan's terminal actions (and live series' attempts) are purged. For a plan that keeps
 * history as long as any (`retentionDays >= keepDays`), it is the start of the oldest month of attempts still kept:
 * an action is deleted only once the month its attempts were written in has been dropped whole, so deleting it
 * deletes no attempt row (a trigger of `actions` deletes a deleted action's attempts). Such history stays up to a
 * month past its retention. A plan with a shorter retention keeps its own cutoff; its attempts in months kept for
 * others go row by row.
 */
export function historyCutoff(now: Date, retentionDays: number, keepDays: number): Date {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
  if (retentionDays < keepDays) return cutoff;
  return monthStart(new Date(now.getTime() - keepDays * 86_400_000));
}
