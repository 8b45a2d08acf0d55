import { randomUUID } from 'node:crypto';
import { type ActionEvent, type ActionState, assertTransition } from '../../domain/action/states.js';
import { type ActionRow, insertAction } from '../../persistence/actions.js';
import { updateGate } from '../../persistence/approvals/gates.js';
import { resetRecipients } from '../../persistence/approvals/recipients.js';
import { revokeResponseTokens } from '../../persistence/approvals/response-tokens.js';
import type { Sql } from '../../persistence/database.js';
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
    await insertAction(tx, {
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
      created_at: now,
      updated_at: now,
    });
    await deps.scheduler.schedule(tx, childId, now);
  }
  await updateGate(tx, row.id, { post_approval_action_id: childId }, { status: to, executed_at: now }, now);
  return { status: to, postApprovalActionId: childId };
}

/**
 * A failed (declined) approval retried with `POST /actions/{id}/retry` asks again from the start: the old links
 * die, every recipient is pending again, escalation contacts added last time go, and the gate forgets its round,
 * so the next send is a first request with a fresh `gate.timeout` counted from it (and a fresh escalation timer).
 * The caller has moved the action to `resolved`, due now; the post-approval request still waits for a confirm.
 */
export async function reopenGate(db: Sql, row: ActionRow, now: Date): Promise<void> {
  await revokeResponseTokens(db, row.id);
  await resetRecipients(db, row.id);
  await updateGate(
    db,
    row.id,
    { snooze_count: 0, sent_at: null, expires_at: null, escalated_at: null, post_approval_action_id: null },
    {},
    now,
  );
}
