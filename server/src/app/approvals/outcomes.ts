import { type ActionEvent, type ActionState, assertTransition } from '../../domain/action/states.js';
import type { ActionRow } from '../../persistence/actions.js';
import { updateGate } from '../../persistence/approvals/gates.js';
import { resetRecipients } from '../../persistence/approvals/recipients.js';
import { revokeResponseTokens } from '../../persistence/approvals/response-tokens.js';
import type { Sql } from '../../persistence/database.js';
import { writeNewAction } from '../actions/create.js';
import type { PreparedAction } from '../actions/prepare.js';
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
    const child = await writeNewAction(
      tx,
      {
        owner: { accountId: row.account_id },
        action: postApprovalRequest(row, now),
        gate: null,
        origin: { kind: 'post_approval', approvalId: row.id },
        now,
      },
      { scheduler: deps.scheduler },
    );
    childId = child.id;
  }
  await updateGate(tx, row.id, { post_approval_action_id: childId }, { status: to, executed_at: now }, now);
  return { status: to, postApprovalActionId: childId };
}

/** The request of an approval, as the webhook action that runs it after the approval, due now. */
function postApprovalRequest(row: ActionRow, now: Date): PreparedAction {
  return {
    mode: 'webhook',
    name: `${row.name} (after approval)`.slice(0, 255),
    description: null,
    timezone: row.timezone,
    at: now,
    idempotencyKey: null,
    callbackUrl: row.callback_url,
    request: row.request,
    maxAttempts: row.max_attempts,
    retryStrategy: row.retry_strategy,
    webhookSecret: row.webhook_secret,
    dedupKeys: [],
    coordination: null,
    recurrence: null,
    gate: null,
  };
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
