import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { ActionState } from '../domain/action/states.js';
import type { DeliveryOutcome } from '../domain/delivery/outcome.js';
import type { ActionRow } from './actions.js';
import type { Sql } from './database.js';

// Vocabulary inside SQL text is interpolated from typed constants, never spelled out by hand.
const WEBHOOK = sql.lit('webhook' satisfies ActionRow['mode']);
const APPROVAL = sql.lit('approval' satisfies ActionRow['mode']);
const EXECUTING = sql.lit('executing' satisfies ActionState);

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
  const { rows } = await sql<ActionRow & { claimed: boolean }>`
    with claimed as (
      update actions set status = ${c.to}, lease_until = ${c.leaseUntil}, updated_at = ${c.now},
        attempt_count = attempt_count + case when mode = ${WEBHOOK} then 1 else 0 end
      where id = ${c.actionId} and status = any(${c.from}::text[]) and next_attempt_at <= ${c.dueBy}
        and (mode <> ${WEBHOOK} or attempt_count < max_attempts)
        and (coordination -> 'on_execute' is null
             or (mode = ${WEBHOOK} and attempt_count > 0)
             or (mode = ${APPROVAL} and gate ->> 'sent_at' is not null))
      returning *
    )
    select claimed.*, true as claimed from claimed
    union all
    select actions.*, false from actions where id = ${c.actionId} and not exists (select 1 from claimed)`.execute(
    db,
  );
  const found = rows[0];
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
  const { rows } = await sql<{ id: string }>`
    with done as (
      update actions set status = ${a.to}, next_attempt_at = null, lease_until = null, last_error = null,
        executed_at = ${a.now}, updated_at = ${a.now}
       where id = ${r.action_id} and status = ${EXECUTING} and attempt_count = ${r.attempt_number}
         and recurrence is null and callback_url is null
      returning id
    )
    insert into delivery_attempts (id, action_id, attempt_number, due_at, started_at, lateness_ms, duration_ms,
      status_code, outcome, error, response_excerpt, response_truncated)
    select ${r.id}::uuid, ${r.action_id}::uuid, ${r.attempt_number}::int, ${r.due_at}::timestamptz,
           ${r.started_at}::timestamptz, ${r.lateness_ms}::int, ${r.duration_ms}::int, ${r.status_code}::int,
           ${r.outcome}::text, ${r.error}::text, ${r.response_excerpt}::text, ${r.response_truncated}::boolean
      from done
    returning id`.execute(db);
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
