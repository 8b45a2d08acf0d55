import { sql } from 'kysely';
import type { Sql } from './database.js';

/**
 * The channel on which a delayed pg-boss job due soon is announced at its sender's commit, as `queue,dueMs`
 * (jobs/timed-wakes.ts listens): pg-boss announces only the jobs due at once.
 */
export const JOB_DUE_CHANNEL = 'sched_job_due';

/** Announces a job of `queue` due at `dueAt`, delivered at the caller's commit (with the job, or not at all). */
export async function announceJob(db: Sql, queue: string, dueAt: Date): Promise<void> {
  await sql`select pg_notify(${JOB_DUE_CHANNEL}, ${`${queue},${dueAt.getTime()}`})`.execute(db);
}

/** A timed queue's waiting jobs, on the database's job clock. */
export interface QueueNext {
  /** A job may be fetched now (its worker is busy, or missed its wake-up). */
  dueNow: boolean;
  /** How long until the earliest job not yet due, if any. */
  nextInMs: number | null;
}

/**
 * For each of `queues` with jobs waiting in pg-boss's `pgboss` schema, whether one is due already and how long until
 * the earliest that is not, on the database's job clock (`pgboss.job_now()`, what pg-boss's fetch compares with);
 * queues with nothing waiting are left out. One statement for every queue: each part reads the first entry of a range
 * of its queue's fetch index (`(name, start_after)` of jobs not yet active), however many jobs wait further ahead.
 */
export async function nextJobsDue(db: Sql, queues: readonly string[]): Promise<Map<string, QueueNext>> {
  const { rows } = await sql<{ queue: string; due_now: boolean; in_ms: number | null }>`
    select q.name as queue,
           exists (select 1 from pgboss.job j
                    where j.name = q.name and j.state < 'active' and j.start_after <= t.now) as due_now,
           (select (extract(epoch from (j.start_after - t.now)) * 1000)::float8 from pgboss.job j
             where j.name = q.name and j.state < 'active' and j.start_after > t.now
             order by j.start_after limit 1) as in_ms
      from unnest(${[...queues]}::text[]) as q(name), (select pgboss.job_now() as now) t`.execute(db);
  return new Map(
    rows
      .filter((r) => r.due_now || r.in_ms !== null)
      .map((r) => [r.queue, { dueNow: r.due_now, nextInMs: r.in_ms === null ? null : Math.max(0, r.in_ms) }]),
  );
}
