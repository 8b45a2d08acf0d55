import { sql } from 'kysely';
import { CLAIM } from '../domain/action/set-transition.js';
import type { ActionState } from '../domain/action/states.js';
import { hostOfOrigin } from '../domain/destinations/origin.js';
import { DESTINATION_COUNTED_ACTIONS, EXACT_TOTAL_LIMIT } from '@sched/contract';
import { originsWithHosts, registeredOrigins } from './action-origins.js';
import { countUpToLimit, estimatedRows, type Sql } from './database.js';
import { dueOrInFlightAt } from './due-index.js';
import { PENDING_PHASE_SQL } from './entities/action.js';

// The reads of an origin's actions: what is in flight to it and what waits for it (through the due and held indexes,
// never its whole schedule or history), and its actions by state for the destinations list.

const EXECUTING: ActionState = 'executing';
/** Waiting for their time: the states an attempt is claimed from. */
const DUE = CLAIM.from;
const FAILED: ActionState = 'failed';

/**
 * The account's attempts due or in flight at `now` (`dueOrInFlightAt`): what an origin's page shows, the list's in
 * flight, and what flow control counts before each request.
 */
function dueAt(db: Sql, accountId: string, now: Date) {
  return db.selectFrom('actions').where(dueOrInFlightAt(now)).where('account_id', '=', accountId);
}

/** The origin's attempts due or in flight at `now` (`dueAt`). */
function dueAtOrigin(db: Sql, s: { accountId: string; origin: string; now: Date }) {
  return dueAt(db, s.accountId, s.now).where('destination_origin', '=', s.origin);
}

/** The origin's due attempts held by it at `now` (a pause, its circuit, flow control), through the held index. */
function heldAtOrigin(db: Sql, s: { accountId: string; origin: string; now: Date }) {
  return db
    .selectFrom('actions')
    .where('held_since', 'is not', null)
    .where(sql<boolean>`${sql.raw(PENDING_PHASE_SQL)}`)
    .where('account_id', '=', s.accountId)
    .where('destination_origin', '=', s.origin)
    .where('next_attempt_at', '<=', s.now)
    .where('status', 'in', DUE);
}

/** Attempts to the origin running now and due now but not started (held, or about to start). */
export async function destinationLoad(
  db: Sql,
  accountId: string,
  origin: string,
  now: Date,
): Promise<{ inFlight: number; waiting: number }> {
  const at = { accountId, origin, now };
  const [due, held] = await Promise.all([
    dueAtOrigin(db, at)
      .select([
        sql<number>`count(*) filter (where status = ${EXECUTING})::int`.as('in_flight'),
        sql<number>`count(*) filter (where status = any(${DUE as ActionState[]}::text[]) and next_attempt_at <= ${now})::int`.as(
          'waiting',
        ),
      ])
      .executeTakeFirstOrThrow(),
    heldAtOrigin(db, at).select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
  ]);
  return { inFlight: due.in_flight, waiting: due.waiting + held.n };
}

export interface DestinationCounts {
  origin: string;
  host: string;
  actions: number;
  scheduled: number;
  inFlight: number;
  failed: number;
  /** False when `actions`, `scheduled` and `failed` are PostgreSQL's estimates (`inFlight` is always counted). */
  exact: boolean;
}

/**
 * A page of the origins the account's actions aim at and of `known` (the origins with a row of their own, none of
 * whose actions may be left), in origin order, with counts, and how many origins there are. Up to EXACT_TOTAL_LIMIT
 * actions with a destination, every figure is counted. Past it the origins are the account's rows of `action_origins`
 * (kept beside the actions: persistence/action-origins.ts) and `known`; the actions, scheduled and failed of a page's
 * origin with at most DESTINATION_COUNTED_ACTIONS actions are counted, those of the others are PostgreSQL's
 * estimates, from its statistics of the account, origin and state together (`actions_origin_status_stats`), and what
 * is in flight is counted through the due index: counting ten million actions by origin and state took longer than
 * the statement timeout, and so did three estimates for each of thousands of origins.
 */
export async function destinationCounts(
  db: Sql,
  accountId: string,
  now: Date,
  known: readonly string[],
  page: { limit: number; offset: number },
): Promise<{ total: number; rows: DestinationCounts[] }> {
  const withDestination = db
    .selectFrom('actions')
    .where('account_id', '=', accountId)
    .where('destination_host', 'is not', null);
  // The origins in order, those of `known` among them; the page is a slice of them.
  const ordered = (of: Iterable<string>) => {
    const all = [...new Set([...of, ...known])].sort();
    return { total: all.length, page: all.slice(page.offset, page.offset + page.limit) };
  };
  // Only whether they are too many to count: the total itself is not shown.
  if ((await countUpToLimit(db, withDestination)) <= EXACT_TOTAL_LIMIT) {
    const counted = new Map((await countedByOrigin(db, accountId)).map((c) => [c.origin, c]));
    const origins = ordered(counted.keys());
    return { total: origins.total, rows: origins.page.map((o) => counted.get(o) ?? noActions(o)) };
  }
  const [registered, inFlight] = await Promise.all([
    registeredOrigins(db, accountId),
    inFlightByOrigin(db, accountId, now),
  ]);
  const origins = ordered(registered);
  const few = await countedUpTo(db, accountId, origins.page);
  const rows = await Promise.all(
    origins.page.map(async (origin): Promise<DestinationCounts> => {
      const host = hostOfOrigin(origin);
      const counted = few.get(origin);
      if (counted) return { origin, host, ...counted, inFlight: inFlight.get(origin) ?? 0, exact: true };
      const of = db
        .selectFrom('actions')
        .where('account_id', '=', accountId)
        .where('destination_origin', '=', origin);
      const [actions, scheduled, failed] = await Promise.all([
        estimatedRows(db, of),
        estimatedRows(db, of.where('status', 'in', DUE)),
        estimatedRows(db, of.where('status', '=', FAILED)),
      ]);
      return { origin, host, actions, scheduled, inFlight: inFlight.get(origin) ?? 0, failed, exact: false };
    }),
  );
  return { total: origins.total, rows };
}

/**
 * The figures of those of `origins` with at most DESTINATION_COUNTED_ACTIONS actions, counted (through the account's
 * host index); the others are left out, to be estimated.
 */
async function countedUpTo(
  db: Sql,
  accountId: string,
  origins: readonly string[],
): Promise<Map<string, Pick<DestinationCounts, 'actions' | 'scheduled' | 'failed'>>> {
  if (origins.length === 0) return new Map();
  const { rows } = await sql<{ origin: string; actions: number; scheduled: number; failed: number }>`
    select d.origin, c.actions, c.scheduled, c.failed
      from ${originsWithHosts(origins)}
     cross join lateral (
       select count(*)::int as actions,
              count(*) filter (where status = any(${DUE as ActionState[]}::text[]))::int as scheduled,
              count(*) filter (where status = ${FAILED})::int as failed
         from (select a.status from actions a
                where a.account_id = ${accountId} and a.destination_host = d.host and a.destination_origin = d.origin
                limit ${DESTINATION_COUNTED_ACTIONS + 1}) as capped) c
     where c.actions <= ${DESTINATION_COUNTED_ACTIONS}`.execute(db);
  return new Map(rows.map(({ origin, ...figures }) => [origin, figures]));
}

/** An origin none of the account's actions aims at (one with settings of its own only). */
function noActions(origin: string): DestinationCounts {
  return {
    origin,
    host: hostOfOrigin(origin),
    actions: 0,
    scheduled: 0,
    inFlight: 0,
    failed: 0,
    exact: true,
  };
}

/** Every figure counted, one read of the account's actions with a destination. */
async function countedByOrigin(db: Sql, accountId: string): Promise<DestinationCounts[]> {
  const rows = await db
    .selectFrom('actions')
    .select([
      'destination_origin as origin',
      'destination_host as host',
      sql<number>`count(*)::int`.as('actions'),
      sql<number>`count(*) filter (where status = any(${DUE as ActionState[]}::text[]))::int`.as('scheduled'),
      sql<number>`count(*) filter (where status = ${EXECUTING})::int`.as('in_flight'),
      sql<number>`count(*) filter (where status = ${FAILED})::int`.as('failed'),
    ])
    .where('account_id', '=', accountId)
    .where('destination_origin', 'is not', null)
    .groupBy(['destination_origin', 'destination_host'])
    .execute();
  return rows.map((r) => ({
    origin: r.origin!,
    host: r.host!,
    actions: r.actions,
    scheduled: r.scheduled,
    inFlight: r.in_flight,
    failed: r.failed,
    exact: true,
  }));
}

/** The account's requests in flight, by origin, through the due index (`dueAt`). */
async function inFlightByOrigin(db: Sql, accountId: string, now: Date): Promise<Map<string, number>> {
  const rows = await dueAt(db, accountId, now)
    .where('status', '=', EXECUTING)
    .select(['destination_origin as origin', sql<number>`count(*)::int`.as('n')])
    .groupBy('destination_origin')
    .execute();
  return new Map(rows.flatMap((r) => (r.origin === null ? [] : [[r.origin, r.n] as const])));
}

/**
 * Requests to the origin in flight now (`executing` under a live lease), other than `actionId`'s: what flow control
 * counts before each request to an origin with a parallelism limit.
 */
export function requestsInFlightQuery(
  db: Sql,
  s: { accountId: string; origin: string; actionId: string; now: Date },
) {
  return dueAtOrigin(db, s)
    .select(sql<number>`count(*)::int`.as('n'))
    .where('status', '=', EXECUTING)
    .where('lease_until', '>', s.now)
    .where('id', '<>', s.actionId);
}

/** How many requests `requestsInFlightQuery` finds. */
export async function requestsInFlight(
  db: Sql,
  s: { accountId: string; origin: string; actionId: string; now: Date },
): Promise<number> {
  return (await requestsInFlightQuery(db, s).executeTakeFirstOrThrow()).n;
}

/**
 * Due deliveries to the origin that their destination held (`held_since` set), by due time: what a wake fires. `after`
 * continues a wake that fired a full batch.
 */
export async function heldDeliveries(
  db: Sql,
  s: {
    accountId: string;
    origin: string;
    now: Date;
    limit: number;
    after?: { at: Date; id: string } | undefined;
  },
): Promise<{ id: string; due: Date }[]> {
  let q = heldAtOrigin(db, s).select(['id', 'next_attempt_at as due']);
  if (s.after) {
    const after = s.after;
    q = q.where((eb) =>
      eb.or([
        eb('next_attempt_at', '>', after.at),
        eb.and([eb('next_attempt_at', '=', after.at), eb('id', '>', after.id)]),
      ]),
    );
  }
  const rows = await q.orderBy('next_attempt_at').orderBy('id').limit(s.limit).execute();
  return rows.map((r) => ({ id: r.id, due: r.due! }));
}
