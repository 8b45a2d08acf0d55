import { sql } from 'kysely';
import type { Sql } from './database.js';

/**
 * How far a streaming replica's replay is behind, in seconds: 0 when it has replayed all it received (an idle
 * primary sends nothing, and the last replayed transaction's age would otherwise read as lag), the age of its last
 * replayed transaction otherwise. A server that is not in recovery (a primary named as the replica) lags by 0.
 */
export async function replicaLagSeconds(db: Sql): Promise<number> {
  const { rows } = await sql<{ lag: number | string | null }>`
    select case
      when not pg_is_in_recovery() then 0
      when pg_last_wal_receive_lsn() is not distinct from pg_last_wal_replay_lsn() then 0
      else greatest(0, extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp()))
    end as lag`.execute(db);
  return Number(rows[0]?.lag ?? 0);
}

/** Records that `accountId` wrote at `at` (later times only: API processes may record out of order). */
export async function recordAccountWrite(db: Sql, accountId: string, at: Date): Promise<void> {
  await db
    .insertInto('account_writes')
    .values({ account_id: accountId, written_at: at })
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet({
        written_at: sql`greatest(account_writes.written_at, excluded.written_at)`,
      }),
    )
    .execute();
}

/** When `accountId` last wrote, as recorded; null when never (or not since a crash emptied the unlogged table). */
export async function lastAccountWrite(db: Sql, accountId: string): Promise<Date | null> {
  const row = await db
    .selectFrom('account_writes')
    .select('written_at')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.written_at ?? null;
}
