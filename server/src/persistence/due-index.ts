import { type RawBuilder, sql } from 'kysely';
import { type DueIndexes, dueQueryHorizon, MAX_CLAIM_AHEAD_MS } from '../domain/action/due-horizon.js';
import { onUntimedConnection, type Sql } from './database.js';
import { PENDING_PHASE_SQL } from './entities/action.js';

// The bounded due indexes of `actions` (domain/action/due-horizon.ts): named actions_due_before_<YYYYMMDD> after the
// day they stop at, built and dropped CONCURRENTLY (writes go on meanwhile), on one connection of their own outside
// any transaction. `actions_due_index`, the unbounded index of the migrations, is what a database has until the job
// first runs; it is dropped once a bounded one serves the queries.

export const UNBOUNDED_DUE_INDEX = 'actions_due_index';
const NAME = /^actions_due_before_(\d{4})(\d{2})(\d{2})$/;
/** Serializes the due index job between processes; any constant of ours will do. */
const DUE_INDEX_LOCK = 7420037;

/** The index bounded by `bound` (a day's start). */
export function dueIndexName(bound: Date): string {
  return `actions_due_before_${bound.toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** The predicate of the due index bounded by `bound`; the unbounded one is the same without the last term. */
const duePredicate = (bound: Date) =>
  `${PENDING_PHASE_SQL} and held_since is null and next_attempt_at < '${bound.toISOString()}'::timestamptz`;

/**
 * What a query of the due index adds at `now` (a literal, not a parameter: the planner must see it to prove the
 * bounded index's predicate, also in a prepared statement's generic plan).
 */
export function dueHorizonSql(now: Date, column = 'next_attempt_at'): string {
  return `${column} < '${dueQueryHorizon(now).toISOString()}'::timestamptz`;
}

/**
 * The rows the due index holds that are due or in flight at `now`: a claim writes no index entry and takes only
 * attempts due by its own `now` plus its lead, so every `executing` row is among them, beside the due backlog. What
 * reads in flight or due work by account (an origin's load, the list of `executing`) asks this, never the schedule.
 */
export function dueOrInFlightAt(now: Date): RawBuilder<boolean> {
  const lead = new Date(now.getTime() + MAX_CLAIM_AHEAD_MS);
  return sql<boolean>`${sql.raw(PENDING_PHASE_SQL)} and held_since is null and ${sql.raw(dueHorizonSql(now))} and next_attempt_at <= ${lead}`;
}

/**
 * A statement (or anything else) built once per query horizon, for the statements whose text carries it: the text
 * changes once a day, and the last two days' are kept.
 */
export function perDueHorizon<T>(build: (horizonSql: string) => T): (now: Date) => T {
  const built = new Map<string, T>();
  return (now) => {
    const horizon = dueHorizonSql(now);
    let value = built.get(horizon);
    if (value === undefined) {
      value = build(horizon);
      built.set(horizon, value);
      for (const key of built.keys()) if (built.size > 2 && key !== horizon) built.delete(key);
    }
    return value;
  };
}

/** The due indexes `actions` has now. */
export async function dueIndexes(db: Sql): Promise<DueIndexes> {
  const { rows } = await sql<{ name: string; valid: boolean }>`
    select c.relname as name, i.indisvalid as valid
      from pg_index i join pg_class c on c.oid = i.indexrelid
     where i.indrelid = 'actions'::regclass and c.relname like 'actions\\_due\\_%'`.execute(db);
  return {
    bounded: rows.flatMap((r) => {
      const m = NAME.exec(r.name);
      return m
        ? [{ bound: new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))), valid: r.valid }]
        : [];
    }),
    unbounded: rows.some((r) => r.name === UNBOUNDED_DUE_INDEX),
  };
}

/**
 * Runs `fn` on a connection of its own holding the job's lock, without a statement timeout (a build reads the whole
 * table); answers null without running it when another process holds the lock and `wait` is false.
 */
export async function withDueIndexLock<T>(
  db: Sql,
  wait: boolean,
  fn: (connection: Sql) => Promise<T>,
): Promise<T | null> {
  return onUntimedConnection(db, async (connection) => {
    if (wait) await sql`select pg_advisory_lock(${DUE_INDEX_LOCK})`.execute(connection);
    else {
      const { rows } = await sql<{
        locked: boolean;
      }>`select pg_try_advisory_lock(${DUE_INDEX_LOCK}) as locked`.execute(connection);
      if (!rows[0]?.locked) return null;
    }
    try {
      return await fn(connection);
    } finally {
      await sql`select pg_advisory_unlock(${DUE_INDEX_LOCK})`.execute(connection).catch(() => undefined);
    }
  });
}

/** Builds the index bounded by `bound` without blocking writes, replacing an invalid one an interrupted build left. */
export async function buildDueIndex(connection: Sql, bound: Date): Promise<string> {
  const name = dueIndexName(bound);
  await dropIndex(connection, name);
  await sql
    .raw(`create index concurrently "${name}" on "actions" ("next_attempt_at") where ${duePredicate(bound)}`)
    .execute(connection);
  return name;
}

/** Drops the bounded index of `bound`, or the unbounded one (null), without blocking writes; a no-op when gone. */
export async function dropDueIndex(connection: Sql, bound: Date | null): Promise<string> {
  const name = bound ? dueIndexName(bound) : UNBOUNDED_DUE_INDEX;
  await dropIndex(connection, name);
  return name;
}

const dropIndex = (connection: Sql, name: string) =>
  sql.raw(`drop index concurrently if exists "${name}"`).execute(connection);
