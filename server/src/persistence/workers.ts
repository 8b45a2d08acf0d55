import { sql } from 'kysely';
import type { Sql } from './database.js';

/**
 * Worker membership, for several `--role worker` processes over one database. Each worker holds a session advisory
 * lock (`MEMBER_LOCK_CLASS`, the backend pid of its LISTEN connection) for as long as that connection lives, so the
 * live workers are the lock's holders as pg_locks lists them: a worker that dies leaves the set the moment its
 * connection closes, and nothing is written to stay in it.
 */
export const MEMBER_LOCK_CLASS = 7_420_001;

/** Takes this session's member lock; answers the member number (the backend pid). */
export const memberLockStatement =
  'select pg_backend_pid() as member, pg_advisory_lock($1, pg_backend_pid())';
export const memberUnlockStatement = 'select pg_advisory_unlock($1, pg_backend_pid())';

/** Where a worker that took its member lock says so, so the others read the live workers at once. */
export const MEMBERS_CHANNEL = 'sched_workers';

export async function announceMember(db: Sql): Promise<void> {
  await sql`select pg_notify(${MEMBERS_CHANNEL}, '')`.execute(db);
}

/**
 * The member numbers of the live workers of this database, ascending, as one SQL expression (an `int8[]`): the
 * dispatcher's promote statement reads them with its work (persistence/schedule.ts), no statement of their own.
 */
export const liveMembersSql = `(select coalesce(array_agg(objid::int8 order by objid), '{}') from pg_locks
     where locktype = 'advisory' and classid = ${MEMBER_LOCK_CLASS}::oid and objsubid = 2 and granted
       and database = (select oid from pg_database where datname = current_database()))`;

/**
 * Which of `slots` live workers owns an action's due attempts: the last 32 bits of its (random) UUID, modulo the
 * count. `ownerSlotSql` is the same rule inside a statement; the two must agree, so they live side by side.
 */
export function ownerSlot(actionId: string, slots: number): number {
  return Number.parseInt(actionId.slice(28), 16) % slots;
}

/** `ownerSlot`'s key of `column` (a uuid) in SQL; modulo the slot count, it is the owning slot. */
export const ownerKeySql = (column: string) => `('x' || substr(${column}::text, 29, 8))::bit(32)::int8`;

/** The database's clock now (not the transaction's start), for a worker to compare its own with. */
export async function databaseClock(db: Sql): Promise<Date> {
  const { rows } = await sql<{ now: Date }>`select clock_timestamp() as now`.execute(db);
  return rows[0]!.now;
}
