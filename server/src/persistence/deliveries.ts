import { randomUUID } from 'node:crypto';
import type { ActionState } from '../domain/action/states.js';
import type { DeliveryOutcome } from '../domain/delivery/outcome.js';
import type { ActionRow } from './actions.js';
import { fixedStatement, type Sql } from './database.js';

// Vocabulary inside SQL text is interpolated from typed constants, never spelled out by hand.
const WEBHOOK: ActionRow['mode'] = 'webhook';
const APPROVAL: ActionRow['mode'] = 'approval';
const EXECUTING: ActionState = 'executing';

/** One attempt as the attempt log records it. */
export interface AttemptRecord {
  actionId: string;
  attemptNumber: number;
  dueAt: Date;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  outcome: DeliveryOutcome;
  error: string | null;
  excerpt: string | null;
  truncated: boolean;
}

/** The `delivery_attempts` row of an attempt: the one place that builds it (record, fast path and lease sweep). */
function attemptRow(a: AttemptRecord) {
  return {
    id: randomUUID(),
    action_id: a.actionId,
    attempt_number: a.attemptNumber,
    due_at: a.dueAt,
    started_at: a.startedAt,
    lateness_ms: Math.max(0, a.startedAt.getTime() - a.dueAt.getTime()),
    duration_ms: Math.max(0, Math.round(a.durationMs)),
    status_code: a.statusCode,
    outcome: a.outcome,
    error: a.error,
    response_excerpt: a.excerpt,
    response_truncated: a.truncated,
  };
}

export async function insertAttempt(db: Sql, a: AttemptRecord): Promise<void> {
  await db.insertInto('delivery_attempts').values(attemptRow(a)).execute();
}

// Every attempt runs these two: fixed texts (see fixedStatement), constants interpolated once.
const claimStatement = fixedStatement<ActionRow & { claimed: boolean }>(
  `with claimed as (
     update actions set status = $2, lease_until = $3, updated_at = $6,
       attempt_count = attempt_count + case when mode = '${WEBHOOK}' then 1 else 0 end
     where id = $1 and status = any($4::text[]) and next_attempt_at <= $5
       and (mode <> '${WEBHOOK}' or attempt_count < max_attempts)
       and (coordination -> 'on_execute' is null
            or (mode = '${WEBHOOK}' and attempt_count > 0)
            or (mode = '${APPROVAL}' and gate ->> 'sent_at' is not null))
     returning *
   )
   select claimed.*, true as claimed from claimed
   union all
   select actions.*, false from actions where id = $1 and not exists (select 1 from claimed)`,
);

const completeStatement = fixedStatement<{ id: string }>(
  `with done as (
     update actions set status = $13, next_attempt_at = null, lease_until = null, last_error = null,
       executed_at = $14, updated_at = $14
      where id = $2 and status = '${EXECUTING}' and attempt_count = $3 and recurrence is null and callback_url is null
     returning id
   )
   insert into delivery_attempts (id, action_id, attempt_number, due_at, started_at, lateness_ms, duration_ms,
     status_code, outcome, error, response_excerpt, response_truncated)
   select $1::uuid, $2::uuid, $3::int, $4::timestamptz, $5::timestamptz, $6::int, $7::int, $8::int, $9::text,
          $10::text, $11::text, $12::boolean
     from done
   returning id`,
);

/**
 * Claims the due attempt of one action in one statement when it needs nothing else (no coordination rule to check
 * first, attempts left): the row moves to `to` under a lease. When nothing was claimed, the same round trip answers
 * the row as it stands (`claimed: false`), so the caller tells a duplicate trigger from a case for the careful path.
 */
export async function claimDue(
  db: Sql,
  c: {
    actionId: string;
    from: readonly ActionState[];
    to: ActionState;
    leaseUntil: Date;
    dueBy: Date;
    now: Date;
  },
): Promise<{ row: ActionRow; claimed: boolean } | null> {
  const [found] = await claimStatement(db, [c.actionId, c.to, c.leaseUntil, c.from, c.dueBy, c.now]);
  if (!found) return null;
  const { claimed, ...row } = found;
  return { row, claimed };
}

/**
 * The common success (one-time, no callback) in one statement: the action moves to `to` and the attempt is logged
 * together, or neither when the lease was lost (answers false; the careful path then sorts it out).
 */
export async function completeOneShot(
  db: Sql,
  a: AttemptRecord & { to: ActionState; now: Date },
): Promise<boolean> {
  const r = attemptRow(a);
  const rows = await completeStatement(db, [
    r.id,
    r.action_id,
    r.attempt_number,
    r.due_at,
    r.started_at,
    r.lateness_ms,
    r.duration_ms,
    r.status_code,
    r.outcome,
    r.error,
    r.response_excerpt,
    r.response_truncated,
    a.to,
    a.now,
  ]);
  return rows.length > 0;
}

/** Executing actions whose lease ran out before `now`, oldest first. */
export async function expiredLeases(db: Sql, now: Date, limit = 100): Promise<string[]> {
  const rows = await db
    .selectFrom('actions')
    .select('id')
    .where('status', '=', 'executing')
    .where('lease_until', '<', now)
    .orderBy('lease_until')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** Locks an action whose lease is still expired at `now`; null when another worker has it or it moved on. */
export async function lockExpiredLease(db: Sql, id: string, now: Date): Promise<ActionRow | null> {
  const row = await db
    .selectFrom('actions')
    .selectAll()
    .where('id', '=', id)
    .where('status', '=', 'executing')
    .where('lease_until', '<', now)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  return row ?? null;
}
