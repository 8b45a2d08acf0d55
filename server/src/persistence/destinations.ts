import type { CircuitSettings, FlowSettings } from '@sched/contract';
import { type Selectable, sql } from 'kysely';
import type { ErrorClass } from '../domain/delivery/error-class.js';
import type { DeliveryOutcome } from '../domain/delivery/outcome.js';
import { CLOSED_CIRCUIT, type CircuitRecord } from '../domain/destinations/circuit.js';
import { hostOfOrigin } from '../domain/destinations/origin.js';
import type { Sql, Tables } from './database.js';

/** A `destinations` row (persistence/entities/destination.ts). */
export type DestinationRow = Selectable<Tables['destinations']>;

const RETRYABLE: DeliveryOutcome = 'retryable';
const BLOCKED: ErrorClass = 'blocked';
/** The host of a `destinations` row's origin (`d.origin`), as `hostOfOrigin` reads it. */
export const ORIGIN_HOST_SQL = sql`substring(d.origin from '^[a-z]+://(\\[[^]]*\\]|[^:/]+)')`;

export async function findDestination(
  db: Sql,
  accountId: string,
  origin: string,
): Promise<DestinationRow | undefined> {
  return db
    .selectFrom('destinations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('origin', '=', origin)
    .executeTakeFirst();
}

/** Creates the origin's row or changes the given parts of it; answers the row as it now stands. */
export async function upsertDestination(
  db: Sql,
  d: {
    accountId: string;
    origin: string;
    now: Date;
    flow?: FlowSettings | null;
    circuit?: CircuitSettings | null;
    pause?: { at: Date | null; until: Date | null; note: string | null };
  },
): Promise<DestinationRow> {
  const changes = {
    ...(d.flow !== undefined ? { flow: d.flow === null ? null : JSON.stringify(d.flow) } : {}),
    // New circuit settings judge the running window again at its next failure: the failure count at which it
    // looks (`circuit_check_at`) was derived from the old `min_requests` and `failure_rate`.
    ...(d.circuit !== undefined
      ? { circuit: d.circuit === null ? null : JSON.stringify(d.circuit), circuit_check_at: 0 }
      : {}),
    ...(d.pause ? { paused_at: d.pause.at, paused_until: d.pause.until, pause_note: d.pause.note } : {}),
  };
  return db
    .insertInto('destinations')
    .values({
      account_id: d.accountId,
      origin: d.origin,
      flow: null,
      circuit: null,
      paused_at: null,
      paused_until: null,
      pause_note: null,
      ...changes,
      created_at: d.now,
      updated_at: d.now,
    } as never)
    .onConflict((oc) =>
      oc.columns(['account_id', 'origin']).doUpdateSet({ ...changes, updated_at: d.now } as never),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Attempts to the origin since `since`: how many, how many failed, and their median and 99th percentile duration. */
export async function destinationStats(
  db: Sql,
  accountId: string,
  origin: string,
  since: Date,
): Promise<{ attempts: number; failures: number; p50: number | null; p99: number | null }> {
  const row = await db
    .selectFrom('delivery_attempts as d')
    .innerJoin('actions as a', 'a.id', 'd.action_id')
    .select([
      sql<number>`count(*)::int`.as('attempts'),
      sql<number>`count(*) filter (where d.outcome <> 'success')::int`.as('failures'),
      sql<number | null>`percentile_cont(0.5) within group (order by d.duration_ms)`.as('p50'),
      sql<number | null>`percentile_cont(0.99) within group (order by d.duration_ms)`.as('p99'),
    ])
    .where('a.account_id', '=', accountId)
    .where('a.destination_host', '=', hostOfOrigin(origin))
    .where('a.destination_origin', '=', origin)
    .where('d.started_at', '>=', since)
    .executeTakeFirstOrThrow();
  const round = (v: number | null) => (v === null ? null : Math.round(Number(v)));
  return { attempts: row.attempts, failures: row.failures, p50: round(row.p50), p99: round(row.p99) };
}

export async function listDestinationRows(db: Sql, accountId: string): Promise<DestinationRow[]> {
  return db.selectFrom('destinations').selectAll().where('account_id', '=', accountId).execute();
}

/** The origins of the account's rows on `host`. */
export async function originsOfHost(db: Sql, accountId: string, host: string): Promise<string[]> {
  const rows = await db
    .selectFrom('destinations as d')
    .select('d.origin')
    .where('d.account_id', '=', accountId)
    .where(sql<boolean>`${ORIGIN_HOST_SQL} = ${host}`)
    .execute();
  return rows.map((r) => r.origin);
}

/** Locks the origin's row for a decision of its flow control or circuit; undefined when it has no row. */
export async function lockDestination(
  db: Sql,
  accountId: string,
  origin: string,
): Promise<DestinationRow | undefined> {
  return db
    .selectFrom('destinations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('origin', '=', origin)
    .forUpdate()
    .executeTakeFirst();
}

/** Locks the origin's row, creating it (with the defaults) first when it has none. */
export async function lockOrCreateDestination(
  db: Sql,
  accountId: string,
  origin: string,
  now: Date,
): Promise<DestinationRow> {
  const row = await lockDestination(db, accountId, origin);
  if (row) return row;
  await db
    .insertInto('destinations')
    .values({ account_id: accountId, origin, created_at: now, updated_at: now } as never)
    .onConflict((oc) => oc.columns(['account_id', 'origin']).doNothing())
    .execute();
  return (await lockDestination(db, accountId, origin))!;
}

export async function saveRateWindow(
  db: Sql,
  s: { accountId: string; origin: string; windowStart: Date; windowCount: number },
): Promise<void> {
  await db
    .updateTable('destinations')
    .set({ rate_window_start: s.windowStart, rate_window_count: s.windowCount })
    .where('account_id', '=', s.accountId)
    .where('origin', '=', s.origin)
    .execute();
}

/** The circuit of an origin's row, as domain/destinations/circuit.ts reads it (an origin without a row is closed). */
export function circuitRecordOf(row: DestinationRow | undefined): CircuitRecord {
  if (!row) return { ...CLOSED_CIRCUIT };
  return {
    state: row.circuit_state,
    openedAt: row.circuit_opened_at,
    nextProbeAt: row.circuit_next_probe_at,
    reopens: row.circuit_reopens,
    probeUntil: row.circuit_probe_until,
    windowStart: row.circuit_window_start,
    windowFailures: row.circuit_window_failures,
    checkAt: row.circuit_check_at,
  };
}

export async function saveCircuit(
  db: Sql,
  s: { accountId: string; origin: string; circuit: CircuitRecord; now: Date },
): Promise<void> {
  const c = s.circuit;
  await db
    .updateTable('destinations')
    .set({
      circuit_state: c.state,
      circuit_opened_at: c.openedAt,
      circuit_next_probe_at: c.nextProbeAt,
      circuit_reopens: c.reopens,
      circuit_probe_until: c.probeUntil,
      circuit_window_start: c.windowStart,
      circuit_window_failures: c.windowFailures,
      circuit_check_at: c.checkAt,
      updated_at: s.now,
    })
    .where('account_id', '=', s.accountId)
    .where('origin', '=', s.origin)
    .execute();
}

/**
 * The attempts to the origin that started at or after `since`, at most `limit` of them (`more` when there were more),
 * and how many of those failed retryably (the circuit's failures, domain/destinations/circuit.ts `signalOf`).
 */
export async function attemptsSince(
  db: Sql,
  s: { accountId: string; origin: string; since: Date; limit: number },
): Promise<{ attempts: number; failures: number; more: boolean }> {
  const row = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('delivery_attempts as d')
        .innerJoin('actions as a', 'a.id', 'd.action_id')
        .select(['d.outcome', 'd.error_class'])
        .where('a.account_id', '=', s.accountId)
        .where('a.destination_host', '=', hostOfOrigin(s.origin))
        .where('a.destination_origin', '=', s.origin)
        .where('d.started_at', '>=', s.since)
        .limit(s.limit + 1)
        .as('w'),
    )
    .select([
      sql<number>`count(*)::int`.as('attempts'),
      sql<number>`count(*) filter (where w.outcome = ${RETRYABLE} and w.error_class is distinct from ${BLOCKED})::int`.as(
        'failures',
      ),
    ])
    .executeTakeFirstOrThrow();
  const more = row.attempts > s.limit;
  return { attempts: Math.min(row.attempts, s.limit), failures: row.failures, more };
}

/** Whether the account sends to the origin (an action aims at it) or has settings for it: what a test may target. */
export async function destinationKnown(db: Sql, accountId: string, origin: string): Promise<boolean> {
  const row = await db
    .selectNoFrom((eb) =>
      eb
        .or([
          eb.exists(
            eb
              .selectFrom('actions')
              .select(sql`1`.as('one'))
              .where('account_id', '=', accountId)
              .where('destination_origin', '=', origin),
          ),
          eb.exists(
            eb
              .selectFrom('destinations')
              .select(sql`1`.as('one'))
              .where('account_id', '=', accountId)
              .where('origin', '=', origin),
          ),
        ])
        .as('known'),
    )
    .executeTakeFirstOrThrow();
  return Boolean(row.known);
}
