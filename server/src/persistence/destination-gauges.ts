import type { HoldReason } from '@sched/contract';
import { sql } from 'kysely';
import { CLAIM } from '../domain/action/set-transition.js';
import type { ActionState } from '../domain/action/states.js';
import type { CircuitState } from '../domain/destinations/circuit.js';
import type { Sql } from './database.js';
import { ORIGIN_HOST_SQL } from './destinations.js';
import { PENDING_PHASE_SQL } from './entities/action.js';

// The /metrics gauges of destinations, over every account: read at scrape time, never on a delivery's path.

/** Waiting for their time: the states an attempt is claimed from. */
const DUE = CLAIM.from;
const CLOSED: CircuitState = 'closed';

/** Destinations whose circuit is not closed, by state (every account; the /metrics gauges). */
export async function circuitStateCounts(db: Sql): Promise<{ state: CircuitState; n: number }[]> {
  return db
    .selectFrom('destinations')
    .select(['circuit_state as state', sql<number>`count(*)::int`.as('n')])
    .where('circuit_state', '<>', CLOSED)
    .groupBy('circuit_state')
    .execute();
}

/** Due deliveries held by their destination now, by reason (every account; the /metrics gauges). */
export async function heldCounts(db: Sql): Promise<{ reason: HoldReason; n: number }[]> {
  const rows = await db
    .selectFrom('actions')
    .select(['held_by', sql<number>`count(*)::int`.as('n')])
    .where('held_since', 'is not', null)
    .where(sql<boolean>`${sql.raw(PENDING_PHASE_SQL)}`)
    .where('status', 'in', DUE)
    .groupBy('held_by')
    .execute();
  return rows.filter((r) => r.held_by !== null).map((r) => ({ reason: r.held_by!, n: r.n }));
}

/**
 * The `limit` hosts with the most held deliveries (every account and origin summed), then those with a circuit not
 * closed, with the state of each such circuit (one per account and origin): the per-host gauges of
 * SCHED_METRICS_HOST_LABELS.
 */
export async function topHeldHosts(
  db: Sql,
  limit: number,
): Promise<{ host: string; held: number; states: CircuitState[] }[]> {
  const { rows } = await sql<{ host: string; held: number; states: CircuitState[] | null }>`
    with held as (
      select destination_host as host, count(*)::int as held from actions
       where held_since is not null and ${sql.raw(PENDING_PHASE_SQL)} and status = any(${DUE as ActionState[]}::text[])
         and destination_host is not null
       group by destination_host
    ), hosts as (
      select host from held
      union
      select ${ORIGIN_HOST_SQL} as host from destinations d where circuit_state <> ${CLOSED}
    )
    select h.host, coalesce(held.held, 0) as held,
           (select array_agg(d.circuit_state) from destinations d
             where ${ORIGIN_HOST_SQL} = h.host and d.circuit_state <> ${CLOSED}) as states
      from hosts h left join held on held.host = h.host
     order by held desc nulls last, h.host
     limit ${limit}`.execute(db);
  return rows.map((r) => ({ host: r.host, held: r.held, states: r.states ?? [] }));
}
