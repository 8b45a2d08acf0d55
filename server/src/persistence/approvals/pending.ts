import { type ActionState, RECIPIENT_STATUS } from '@sched/contract';
import { sql } from 'kysely';
import { phaseOf } from '../../domain/action/states.js';
import type { ActionRow } from '../actions.js';
import { countMatching, type Listing, type Sql } from '../database.js';

export interface PendingFilter {
  status: ActionState;
  /** An address (case-insensitive) or a `contact:<id>` (whatever channel suffix). */
  recipient?: string | undefined;
  channel?: string | undefined;
  /** Overdue: a reminder has gone out, or the gate times out before this instant. */
  overdueBefore: Date;
  /** Only overdue ones (`overdue=true`). */
  overdueOnly: boolean;
}

/** `expires_at` of a gate, as a timestamp (null before the first send). */
const expiresAt = sql<Date | null>`(gate->>'expires_at')::timestamptz`;

function overdueExpression(before: Date) {
  return sql<boolean>`(coalesce((gate->>'reminders_sent')::int, 0) > 0 or ${expiresAt} <= ${before})`;
}

/** A recipient still on the gate: one handed over to another no longer is. */
const onGate = sql<boolean>`r.status <> ${RECIPIENT_STATUS.reassigned}`;

/**
 * The approval actions of one account the filter matches (chains' gate steps included). The phase is written as a
 * literal beside the status: the planner proves a partial index's predicate only from literals, and the approvals
 * waiting have an index of their own (`actions_awaiting_index`), so listing them reads only them, not every action.
 */
export function matchingApprovals(db: Sql, accountId: string, f: PendingFilter) {
  let q = db
    .selectFrom('actions')
    .where('account_id', '=', accountId)
    .where(sql<boolean>`phase = ${sql.lit(phaseOf(f.status))}`)
    .where('mode', '=', 'approval')
    .where(sql<boolean>`status = ${f.status}`);
  if (f.recipient) {
    const named = f.recipient.trim().toLowerCase();
    q = q.where(
      sql<boolean>`exists (select 1 from recipients r where r.action_id = actions.id and ${onGate} and (lower(r.address) = ${named} or lower(r.reference) = ${named} or lower(r.reference) like ${`${named.replace(/[\\%_]/g, (c) => `\\${c}`)}:%`}))`,
    );
  }
  if (f.channel) {
    q = q.where(
      sql<boolean>`exists (select 1 from recipients r where r.action_id = actions.id and ${onGate} and r.targets @> ${JSON.stringify([{ channel: f.channel }])}::jsonb)`,
    );
  }
  if (f.overdueOnly) q = q.where(overdueExpression(f.overdueBefore));
  return q;
}

/** Approval actions of one account by the filter, nearest timeout first (not yet sent last), and their count. */
export async function pendingApprovals(
  db: Sql,
  accountId: string,
  f: PendingFilter,
  page: { limit: number; offset: number },
): Promise<Listing<ActionRow & { overdue: boolean }>> {
  const q = matchingApprovals(db, accountId, f);
  const [total, rows] = await Promise.all([
    countMatching(db, q),
    q
      .selectAll()
      .select(overdueExpression(f.overdueBefore).as('overdue'))
      .orderBy(sql`${expiresAt} asc nulls last`)
      .orderBy('created_at')
      .orderBy('id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return { ...total, rows: rows as unknown as (ActionRow & { overdue: boolean })[] };
}
