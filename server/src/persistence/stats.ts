import { sql } from 'kysely';
import { ACTION_STATES, type ActionState } from '@sched/contract';
import { CLAIM } from '../domain/action/set-transition.js';
import { PENDING_PHASE, PENDING_STATES, phaseOf } from '../domain/action/states.js';
import { matchingActions } from './actions.js';
import { matchingApprovals } from './approvals/pending.js';
import { countMatching, estimatedRows, type Sql, type Total } from './database.js';

const EXECUTING: ActionState = 'executing';
/** Waiting for their time: the states an attempt is claimed from, the rest of the pending phase. */
const WAITING = CLAIM.from;

/**
 * How many of an account's actions are in each state, each counted as `GET /v1/actions?status=` counts its total
 * (a chain's steps are not listed): exactly up to EXACT_TOTAL_LIMIT, the planner's estimate past it, so the overview
 * of ten million actions costs what the overview of ten thousand does. A state outside the pending phase is its own
 * phase, counted from the account's phase index alone. The pending phase's states share one index entry (a claim
 * changes the state and writes no index): the phase is counted once, then told apart row by row when that count is
 * exact. When it is not, `executing` is still counted (the due index holds each, `matchingActions`) and the two
 * states waiting for their time are estimated (one of them counted row by row would read every pending action).
 */
export async function countActionsByStatus(
  db: Sql,
  accountId: string,
  now: Date,
): Promise<Map<ActionState, Required<Total>>> {
  const ownPhase = ACTION_STATES.filter((s) => phaseOf(s) === s);
  const matching = (status?: ActionState) =>
    matchingActions(db, accountId, status === undefined ? {} : { status }, now);
  const pending = matching().where('phase', '=', PENDING_PHASE);
  const [counts, pendingCount] = await Promise.all([
    Promise.all(ownPhase.map((s) => countMatching(db, matching(s)))),
    countMatching(db, pending),
  ]);
  const byState = new Map(ownPhase.map((s, i) => [s, counts[i]!]));
  if (pendingCount.exact) {
    const rows = await pending
      .select(['status', sql<number>`count(*)::int`.as('n')])
      .groupBy('status')
      .execute();
    const counted = new Map(rows.map((r) => [r.status, r.n]));
    for (const s of PENDING_STATES) byState.set(s, { total: counted.get(s) ?? 0, exact: true });
  } else {
    // The planner takes the account, the phase and the state as independent and so misjudges each state's rows;
    // what it gets right is their proportion, which here shares out the rest of the phase (never less than counted).
    const [inFlight, estimates] = await Promise.all([
      countMatching(db, matching(EXECUTING)),
      Promise.all(WAITING.map((s) => estimatedRows(db, matching(s)))),
    ]);
    byState.set(EXECUTING, inFlight);
    const sum = estimates.reduce((a, b) => a + b, 0);
    const rest = Math.max(0, pendingCount.total - inFlight.total);
    WAITING.forEach((s, i) => {
      const share = sum > 0 ? estimates[i]! / sum : s === 'scheduled' ? 1 : 0;
      byState.set(s, { total: Math.round(rest * share), exact: false });
    });
  }
  return byState;
}

/** Approvals waiting for an answer, chains' gate steps included: the total of `GET /v1/approvals`. */
export function countApprovalsWaiting(db: Sql, accountId: string, now: Date): Promise<Required<Total>> {
  const waiting = matchingApprovals(db, accountId, {
    status: 'awaiting_response',
    overdueBefore: now,
    overdueOnly: false,
  });
  return countMatching(db, waiting);
}

/** Delivery figures of one hour (`hour` set) or of the whole span (`hour` null). */
export interface DeliveryFigures {
  hour: Date | null;
  attempts: number;
  succeeded: number;
  p50: number | null;
  p99: number | null;
}

/**
 * The account's delivery attempts started in [since, until): per hour and in all (a rollup row whose `hour` is
 * null), with lateness percentiles. Uses delivery_attempts' started_at index, then each attempt's action.
 */
export async function deliveryFigures(
  db: Sql,
  accountId: string,
  since: Date,
  until: Date,
): Promise<DeliveryFigures[]> {
  const { rows } = await sql<{
    hour: Date | null;
    attempts: number;
    succeeded: number;
    p50: number | null;
    p99: number | null;
  }>`
    select date_trunc('hour', d.started_at) as hour, count(*)::int as attempts,
           (count(*) filter (where d.outcome = 'success'))::int as succeeded,
           percentile_disc(0.5) within group (order by d.lateness_ms) as p50,
           percentile_disc(0.99) within group (order by d.lateness_ms) as p99
      from delivery_attempts d join actions a on a.id = d.action_id
     where d.started_at >= ${since} and d.started_at < ${until} and a.account_id = ${accountId}
     group by rollup (date_trunc('hour', d.started_at))`.execute(db);
  return rows;
}

/** Attempts per destination URL in [since, until), the most failed first (`limit` URLs). */
export interface FailingUrl {
  url: string;
  attempts: number;
  failed: number;
  last_failed_at: Date | null;
}

export async function failingUrls(
  db: Sql,
  accountId: string,
  since: Date,
  until: Date,
  limit: number,
): Promise<FailingUrl[]> {
  const { rows } = await sql<FailingUrl>`
    select a.request->>'url' as url, count(*)::int as attempts,
           (count(*) filter (where d.outcome <> 'success'))::int as failed,
           max(d.started_at) filter (where d.outcome <> 'success') as last_failed_at
      from delivery_attempts d join actions a on a.id = d.action_id
     where d.started_at >= ${since} and d.started_at < ${until} and a.account_id = ${accountId}
       and a.request is not null
     group by 1
     order by 3 desc, 2 desc
     limit ${limit}`.execute(db);
  return rows;
}
