import { sql } from 'kysely';
import type { Sql } from './database.js';

/**
 * For each of `queues`, how long until its earliest job waiting in pg-boss's `pgboss` schema may be fetched (0 when
 * one is due already), on the database's job clock (`pgboss.job_now()`, what pg-boss's fetch compares with); queues
 * with nothing waiting are left out. One statement for every queue: each reads the first entry of its queue's fetch
 * index (`(name, start_after)` of jobs not yet active), however many jobs wait further ahead.
 */
export async function nextJobsDue(db: Sql, queues: readonly string[]): Promise<Map<string, number>> {
  const { rows } = await sql<{ queue: string; in_ms: number }>`
    select q.name as queue, (extract(epoch from (n.start_after - pgboss.job_now())) * 1000)::float8 as in_ms
      from unnest(${[...queues]}::text[]) as q(name)
      cross join lateral (select j.start_after from pgboss.job j
                           where j.name = q.name and j.state < 'active'
                           order by j.start_after limit 1) n`.execute(db);
  return new Map(rows.map((r) => [r.queue, Math.max(0, r.in_ms)]));
}
