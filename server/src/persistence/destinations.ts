import type { CircuitSettings, FlowSettings } from '@sched/contract';
import { type Selectable, sql } from 'kysely';
import type { ActionState } from '../domain/action/states.js';
import { decideFlow, type FlowDecision } from '../domain/destinations/flow.js';
import type { Sql, Tables } from './database.js';

/** A `destinations` row (persistence/entities/destination.ts). */
export type DestinationRow = Selectable<Tables['destinations']>;

const EXECUTING: ActionState = 'executing';
const DUE: readonly ActionState[] = ['scheduled', 'resolved'];
const FAILED: ActionState = 'failed';

export async function findDestination(
  db: Sql,
  accountId: string,
  host: string,
): Promise<DestinationRow | undefined> {
  return db
    .selectFrom('destinations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('host', '=', host)
    .executeTakeFirst();
}

/** Creates the host's row or changes the given parts of it; answers the row as it now stands. */
export async function upsertDestination(
  db: Sql,
  d: {
    accountId: string;
    host: string;
    now: Date;
    flow?: FlowSettings | null;
    circuit?: CircuitSettings | null;
    pause?: { at: Date | null; until: Date | null; note: string | null };
  },
): Promise<DestinationRow> {
  const changes = {
    ...(d.flow !== undefined ? { flow: d.flow === null ? null : JSON.stringify(d.flow) } : {}),
    ...(d.circuit !== undefined ? { circuit: d.circuit === null ? null : JSON.stringify(d.circuit) } : {}),
    ...(d.pause ? { paused_at: d.pause.at, paused_until: d.pause.until, pause_note: d.pause.note } : {}),
  };
  return db
    .insertInto('destinations')
    .values({
      account_id: d.accountId,
      host: d.host,
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
      oc.columns(['account_id', 'host']).doUpdateSet({ ...changes, updated_at: d.now } as never),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Attempts to the host running now and due now but not started (held, or about to start). */
export async function destinationLoad(
  db: Sql,
  accountId: string,
  host: string,
  now: Date,
): Promise<{ inFlight: number; waiting: number }> {
  const row = await db
    .selectFrom('actions')
    .select([
      sql<number>`count(*) filter (where status = ${EXECUTING})::int`.as('in_flight'),
      sql<number>`count(*) filter (where status = any(${DUE as ActionState[]}::text[]) and next_attempt_at <= ${now})::int`.as(
        'waiting',
      ),
    ])
    .where('account_id', '=', accountId)
    .where('destination_host', '=', host)
    .where((eb) => eb.or([eb('status', '=', EXECUTING), eb('status', 'in', DUE)]))
    .executeTakeFirstOrThrow();
  return { inFlight: row.in_flight, waiting: row.waiting };
}

/** Attempts to the host since `since`: how many, how many failed, and their median and 99th percentile duration. */
export async function destinationStats(
  db: Sql,
  accountId: string,
  host: string,
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
    .where('a.destination_host', '=', host)
    .where('d.started_at', '>=', since)
    .executeTakeFirstOrThrow();
  const round = (v: number | null) => (v === null ? null : Math.round(Number(v)));
  return { attempts: row.attempts, failures: row.failures, p50: round(row.p50), p99: round(row.p99) };
}

export interface DestinationCounts {
  host: string;
  actions: number;
  scheduled: number;
  inFlight: number;
  failed: number;
}

/** Every host the account's actions aim at, with counts, by host name. */
export async function destinationCounts(db: Sql, accountId: string): Promise<DestinationCounts[]> {
  const rows = await db
    .selectFrom('actions')
    .select([
      'destination_host as host',
      sql<number>`count(*)::int`.as('actions'),
      sql<number>`count(*) filter (where status = any(${DUE as ActionState[]}::text[]))::int`.as('scheduled'),
      sql<number>`count(*) filter (where status = ${EXECUTING})::int`.as('in_flight'),
      sql<number>`count(*) filter (where status = ${FAILED})::int`.as('failed'),
    ])
    .where('account_id', '=', accountId)
    .where('destination_host', 'is not', null)
    .groupBy('destination_host')
    .orderBy('destination_host')
    .execute();
  return rows.map((r) => ({
    host: r.host!,
    actions: r.actions,
    scheduled: r.scheduled,
    inFlight: r.in_flight,
    failed: r.failed,
  }));
}

export async function listDestinationRows(db: Sql, accountId: string): Promise<DestinationRow[]> {
  return db.selectFrom('destinations').selectAll().where('account_id', '=', accountId).execute();
}

/**
 * Flow control's slot for one request to `host` (issue 24), inside the claim's transaction: the host's row is
 * locked, so the claims of every worker to that host take turns, and the in-flight count read after the lock sees
 * every claim committed before it. Null when the host has no flow settings (nothing to take).
 */
export async function takeFlowSlot(
  db: Sql,
  s: { accountId: string; host: string; actionId: string; now: Date },
): Promise<FlowDecision | null> {
  const row = await db
    .selectFrom('destinations')
    .select(['flow', 'rate_window_start', 'rate_window_count'])
    .where('account_id', '=', s.accountId)
    .where('host', '=', s.host)
    .forUpdate()
    .executeTakeFirst();
  if (!row?.flow) return null;
  const running = await db
    .selectFrom('actions')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('account_id', '=', s.accountId)
    .where('destination_host', '=', s.host)
    .where('status', '=', EXECUTING)
    .where('lease_until', '>', s.now)
    .where('id', '<>', s.actionId)
    .executeTakeFirstOrThrow();
  const decision = decideFlow(
    row.flow,
    { inFlight: running.n, windowStart: row.rate_window_start, windowCount: row.rate_window_count },
    s.now,
  );
  if (decision.admit && row.flow.rate !== undefined)
    await db
      .updateTable('destinations')
      .set({ rate_window_start: decision.windowStart, rate_window_count: decision.windowCount })
      .where('account_id', '=', s.accountId)
      .where('host', '=', s.host)
      .execute();
  return decision;
}
