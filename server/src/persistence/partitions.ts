import { sql } from 'kysely';
import { monthStart } from '../domain/history/partitions.js';
import type { Sql } from './database.js';
import { uuidv7LowerBound } from './ids.js';

// The months of the attempt log (domain/history/partitions.ts): one partition per UTC month of the time-ordered ids,
// named delivery_attempts_y<YYYY>m<MM>, its bounds the ids of the month's first millisecond and the next month's.

const PARENT = 'delivery_attempts';
const NAME = /^delivery_attempts_y(\d{4})m(\d{2})$/;
/** Serializes partition changes between processes (two workers starting at once); any constant of ours will do. */
const PARTITION_LOCK = 7420036;

/** The partition that holds the month starting at `month`. */
export function attemptPartitionName(month: Date): string {
  return `${PARENT}_y${month.getUTCFullYear()}m${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** Serializes partition changes between processes (two workers starting at once) for the rest of the transaction. */
export async function lockAttemptPartitions(db: Sql): Promise<void> {
  await sql`select pg_advisory_xact_lock(${PARTITION_LOCK})`.execute(db);
}

/**
 * Takes the lock a partition change needs: the parent `delivery_attempts` alone (no other table refers to it, and it
 * refers to none). Every delivery that records an attempt holds it briefly, so the change waits for those in flight,
 * and the deliveries that come after wait for the change: at most 200 ms, then the change gives up (an error
 * `isLockBusy` recognises: roll back and try again shortly), so no delivery waits longer than that.
 */
export async function lockForPartitionChange(db: Sql): Promise<void> {
  await sql`set local lock_timeout = '200ms'`.execute(db);
  // ONLY: the parent, not every partition.
  await sql`lock table only ${sql.id(PARENT)} in access exclusive mode`.execute(db);
}

/** Whether `err` is PostgreSQL's "lock not available", a lock timeout of `lockForPartitionChange`. */
export function isLockBusy(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '55P03';
}

/** The months that have a partition, by their first instant, oldest first. */
export async function attemptMonths(db: Sql): Promise<Date[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name
      from pg_inherits i
      join pg_class c on c.oid = i.inhrelid
      join pg_class p on p.oid = i.inhparent
     where p.relname = ${PARENT} and p.relnamespace = current_schema()::regnamespace
     order by c.relname`.execute(db);
  return rows.flatMap((r) => {
    const m = NAME.exec(r.name);
    return m ? [new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1))] : [];
  });
}

/**
 * The statement that creates the month's partition, a no-op when it exists (names and bounds are ours, never a
 * caller's text). Also what the benchmarks' seed runs for the months of history it writes (bench/seed.mjs).
 */
export function attemptPartitionStatement(month: Date): string {
  const from = uuidv7LowerBound(month);
  const to = uuidv7LowerBound(monthStart(month, 1));
  return `create table if not exists "${attemptPartitionName(month)}" partition of "${PARENT}" for values from ('${from}') to ('${to}')`;
}

/** Creates the month's partition; a no-op when it exists. */
export async function createAttemptPartition(db: Sql, month: Date): Promise<void> {
  await sql.raw(attemptPartitionStatement(monthStart(month))).execute(db);
}

/** Drops the month's partition and every attempt in it: no row is deleted, so none is left for VACUUM. */
export async function dropAttemptPartition(db: Sql, month: Date): Promise<void> {
  await sql`drop table if exists ${sql.id(attemptPartitionName(month))}`.execute(db);
}
