import { REMINDER_EVENT } from '@sched/contract';
import { answerValues } from '../../domain/approval/fields.js';
import type { ActionRow } from '../../persistence/actions.js';
import { addToTimeline } from '../../persistence/timeline.js';
import type { Sql } from '../../persistence/database.js';
import { liveGrant } from '../../persistence/grants.js';
import { applyActionEvent } from '../actions/transition.js';
import { grantGate } from '../approvals/outcomes.js';
import { recordAudit } from '../audit.js';
import type { ActionScheduler, CallbackQueue, Clock } from '../ports.js';
import type { Waits } from '../waits.js';

/**
 * Standing grants at work: an approval whose `gate.grant.key` has a live grant in its account is confirmed when its
 * request would go out, without any message. Its typed answer is the fields' defaults (the agent's proposal the
 * grant allowed); a required field without a default needs a person, so such a gate is asked as usual.
 */
export class StandingGrants {
  constructor(
    private readonly deps: {
      callbacks: CallbackQueue;
      scheduler: ActionScheduler;
      clock: Clock;
      waits: Waits;
    },
  ) {}

  /** In the round's transaction, for an action just claimed to send its first request; answers whether it confirmed. */
  async confirmByGrant(tx: Sql, row: ActionRow): Promise<boolean> {
    const gate = row.gate;
    if (!gate?.grant) return false;
    const answered = answerValues(gate.fields ?? [], undefined, 'confirm');
    if (!answered.ok) return false;
    const now = this.deps.clock();
    const grant = await liveGrant(tx, row.account_id, gate.grant.key, now);
    if (!grant) return false;
    const values = answered.values;
    const waiting = await applyActionEvent(
      tx,
      row,
      'reminder_delivered',
      { now, gate: { sent_at: now.toISOString(), granted_by: grant.id } },
      this.deps,
    );
    const { status } = await grantGate(tx, waiting, 'confirm', this.deps, { values });
    const named = `by standing grant ${grant.id} (${grant.key}) given by ${grant.given_by}`;
    await addToTimeline(tx, row.id, [
      { type: REMINDER_EVENT.confirmed, actor: grant.given_by, notes: named },
    ]);
    await recordAudit(tx, row.account_id, {
      action: 'approval.confirm',
      actor: { type: 'system', id: 'grant' },
      resource: { type: 'action', id: row.id },
      // Who gave it by recipient id, never by address: the log cannot be edited, personal data can be.
      details: { grant_id: grant.id, key: grant.key, given_by_recipient_id: grant.recipient_id, values },
    });
    await this.deps.callbacks.enqueue(tx, row, 'reminder.responded', {
      status,
      response: 'confirmed',
      decision: 'confirm',
      respondent: grant.given_by,
      recipient_id: null,
      comment: null,
      values,
      grant_id: grant.id,
    });
    return true;
  }
}
