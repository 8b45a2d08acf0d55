import { randomUUID } from 'node:crypto';
import { type ActionEvent, type ActionState, assertTransition } from '../../domain/action/states.js';
import { type ActionRow, actionSql, type StoredGate } from '../../persistence/action-store.js';
import type { Sql } from '../../persistence/db.js';
import type { ActionScheduler, Clock } from '../ports.js';

/**
 * Approval granted (by answers or by `on_timeout: approve`): the action is executed and, when it carries a
 * `request`, that request becomes a webhook action due now, so it gets the delivery engine's retries, signatures,
 * SSRF guard and callbacks. Its id is kept in `gate.post_approval_action_id`.
 */
export async function grantGate(
  tx: Sql,
  row: ActionRow,
  event: Extract<ActionEvent, 'confirm' | 'timeout_approve'>,
  deps: { scheduler: ActionScheduler; clock: Clock },
): Promise<{ status: ActionState; postApprovalActionId: string | null }> {
  const to = assertTransition(row.status, event);
  const now = deps.clock();
  let childId: string | null = null;
  if (row.request) {
    childId = randomUUID();
    await actionSql.insert(tx, {
      id: childId,
      account_id: row.account_id,
      name: `${row.name} (after approval)`.slice(0, 255),
      description: `Request run after approval of action ${row.id}`,
      mode: 'webhook',
      status: 'scheduled',
      timezone: row.timezone,
      scheduled_for: now,
      next_attempt_at: now,
      idempotency_key: null,
      dedup_keys: [],
      max_attempts: row.max_attempts,
      retry_strategy: row.retry_strategy,
      request: row.request,
      webhook_secret: row.webhook_secret,
      callback_url: row.callback_url,
      coordination: null,
      recurrence: null,
      recurrence_anchor: null,
      gate: null,
    });
    await deps.scheduler.schedule(tx, childId, now);
  }
  await setGate(tx, row, { post_approval_action_id: childId }, { status: to, executed_at: now });
  return { status: to, postApprovalActionId: childId };
}

/** Updates the gate's running state (and optionally the status) in one statement. */
export async function setGate(
  tx: Sql,
  row: ActionRow,
  patch: Partial<StoredGate>,
  fields: {
    status?: ActionState;
    executed_at?: Date;
    next_attempt_at?: Date | null;
    last_error?: string | null;
  } = {},
): Promise<void> {
  await tx.query(
    `update actions set gate = gate || $2::jsonb,
       status = coalesce($3, status),
       executed_at = coalesce($4, executed_at),
       next_attempt_at = case when $5::boolean then $6::timestamptz else next_attempt_at end,
       last_error = case when $7::boolean then $8 else last_error end,
       lease_until = case when $3 is null then lease_until else null end,
       updated_at = now()
     where id = $1`,
    [
      row.id,
      JSON.stringify(patch),
      fields.status ?? null,
      fields.executed_at ?? null,
      'next_attempt_at' in fields,
      fields.next_attempt_at ?? null,
      'last_error' in fields,
      fields.last_error ?? null,
    ],
  );
}
