import { RECIPIENT_STATUS, REMINDER_EVENT } from '@sched/contract';
import type { ActionState } from '../../domain/action/states.js';
import { isOnGate } from '../../domain/approval/reassign.js';
import type { ActionRow } from '../../persistence/actions.js';
import { findGateAction, updateGate } from '../../persistence/approvals/gates.js';
import { wasNotified } from '../../persistence/approvals/message-log.js';
import {
  findRecipient,
  insertRecipients,
  recipientsOf,
  wakeSnoozed,
} from '../../persistence/approvals/recipients.js';
import { addToTimeline } from '../../persistence/timeline.js';
import { quietHoldUntil } from './quiet.js';
import { recordAudit } from '../audit.js';
import type { GateRounds, GateTimer, GateTimers } from '../ports.js';
import type { StandingGrants } from '../grants/apply.js';
import type { Waits } from '../waits.js';
import { applyActionEvent, type TransitionDeps } from '../actions/transition.js';
import { channelsOf, RoundMessages, type RoundMessagesDeps } from './round-messages.js';

export interface ApprovalRoundsDeps extends RoundMessagesDeps, TransitionDeps {
  timers: GateTimers;
  waits: Waits;
  /** Standing grants (app/grants/apply.ts): a first request whose key is granted is confirmed without a message. */
  grants?: Pick<StandingGrants, 'confirmByGrant'>;
}

/** States in which a gate still waits for answers (a snoozed one is `scheduled` or `resolved` until its reminder). */
export const WAITING: readonly ActionState[] = ['awaiting_response', 'scheduled', 'resolved'];

/**
 * Sends approval rounds: the request, a reminder after a snooze, or the escalation to the escalation contacts.
 * The delivery core calls `sendRound` when it has claimed a gate's action; the escalation timer calls `escalate`
 * (app/approvals/timers.ts). Answers arrive through `ResponseService` (respond.ts).
 */
export class ApprovalRounds implements GateRounds {
  private readonly messages: RoundMessages;

  constructor(private readonly deps: ApprovalRoundsDeps) {
    this.messages = new RoundMessages(deps);
  }

  /** Sends the round due now for an action the delivery core has just claimed (status `executing`). */
  async sendRound(row: ActionRow): Promise<void> {
    const { store } = this.deps;
    const gate = row.gate!;
    const first = gate.sent_at === null;
    const now = this.deps.clock();
    const expiresAt = first
      ? new Date(now.getTime() + this.deps.waits.wait(gate.timeout_ms))
      : new Date(gate.expires_at!);
    const kind = first ? 'request' : 'reminder';
    const { grants } = this.deps;
    if (first && gate.grant && grants && (await store.transaction((tx) => grants.confirmByGrant(tx, row))))
      return;
    const all = await recipientsOf(store.sql, row.id);
    const due = all.filter(
      (r) =>
        isOnGate(r) &&
        (first || r.status === RECIPIENT_STATUS.pending || r.status === RECIPIENT_STATUS.snoozed),
    );
    await this.messages.send(row, gate, due, kind, expiresAt);

    await store.transaction(async (tx) => {
      await addToTimeline(
        tx,
        row.id,
        due
          .filter((r) => this.messages.sendableChannelsOf(r).length > 0)
          .map((r) => ({
            type: REMINDER_EVENT.sent,
            actor: null,
            notes: `${kind} to ${r.address} via ${this.messages.sendableChannelsOf(r).join(', ')}`,
          })),
      );
      await wakeSnoozed(tx, row.id);
      const round = now.toISOString();
      await applyActionEvent(
        tx,
        row,
        'reminder_delivered',
        { now, gate: first ? { sent_at: round, expires_at: expiresAt.toISOString() } : {} },
        this.deps,
      );
      if (first) {
        await this.deps.timers.set(tx, { actionId: row.id, kind: 'timeout', round }, expiresAt);
        if (gate.escalation) {
          const at = new Date(now.getTime() + this.deps.waits.wait(gate.escalation.after_hours * 3_600_000));
          if (at < expiresAt)
            await this.deps.timers.set(tx, { actionId: row.id, kind: 'escalation', round }, at);
        }
        if (gate.reminders) {
          const at = new Date(now.getTime() + this.deps.waits.wait(gate.reminders.every_ms));
          if (at < expiresAt)
            await this.deps.timers.set(tx, { actionId: row.id, kind: 'reminder', round }, at);
        }
      }
    });
  }

  /**
   * The escalation timer fired: when nobody has answered (a snooze counts as an answer) in the round that set it,
   * the escalation contacts join as recipients and get the message. Idempotent: a timer that no longer applies
   * does nothing.
   */
  async escalate(timer: GateTimer): Promise<void> {
    const now = this.deps.clock();
    const plan = await this.deps.store.transaction(async (tx) => {
      const row = await findGateAction(tx, timer.actionId, { forUpdate: true });
      const gate = row?.gate;
      if (!row || !gate?.escalation || gate.escalated_at) return null;
      if (timer.round !== undefined && timer.round !== gate.sent_at) return null;
      // Set before a pause's resume: the clock was moved on, and resume set the timer again (app/actions/pause.ts).
      if ((timer.resumes ?? 0) !== (gate.resumes ?? 0)) return null;
      if (!WAITING.includes(row.status)) return null;
      // Quiet hours hold the escalation (unless they let escalations through): the timer is set for their end.
      const hold = await quietHoldUntil(tx, row.account_id, gate, now, 'escalation');
      if (hold) {
        await this.deps.timers.set(tx, timer, hold);
        return null;
      }
      const recipients = await recipientsOf(tx, row.id);
      // "Without a response": any answer, a snooze included, means someone is on it (a reassignment is not one).
      if (recipients.some((r) => isOnGate(r) && r.status !== RECIPIENT_STATUS.pending)) return null;
      const added = await insertRecipients(
        tx,
        row.id,
        'escalation',
        gate.escalation.recipients,
        now,
        recipients.length,
      );
      await updateGate(tx, row.id, { escalated_at: now.toISOString() }, {}, now);
      await addToTimeline(tx, row.id, [
        {
          type: REMINDER_EVENT.escalated,
          actor: null,
          notes: `no answer after ${gate.escalation.after_hours} h; escalated to ${added.map((r) => r.address).join(', ')}`,
        },
      ]);
      return { row, gate, added };
    });
    if (!plan) return;
    await this.messages.send(
      plan.row,
      plan.gate,
      plan.added,
      'escalation',
      new Date(plan.gate.expires_at ?? now),
    );
  }

  /**
   * A reminder: re-sends the message to the recipients who have not answered (pending), on the gate's reminder
   * channels. A scheduled one (`round` set) counts against `reminders.max` and sets the next; one asked for by
   * `POST /actions/{id}/remind` (`manual`) is sent once. Idempotent for a stale timer.
   */
  async remind(timer: GateTimer): Promise<void> {
    const now = this.deps.clock();
    const plan = await this.deps.store.transaction(async (tx) => {
      const row = await findGateAction(tx, timer.actionId, { forUpdate: true });
      const gate = row?.gate;
      if (!row || !gate || row.status !== 'awaiting_response') return null;
      if (!timer.manual) {
        if (!gate.reminders || timer.round !== gate.sent_at) return null;
        if ((timer.resumes ?? 0) !== (gate.resumes ?? 0)) return null;
        if ((gate.reminders_sent ?? 0) >= gate.reminders.max) return null;
        // A scheduled reminder waits for the end of quiet hours; one asked for by a person goes now.
        const hold = await quietHoldUntil(tx, row.account_id, gate, now, 'reminder');
        if (hold) {
          await this.deps.timers.set(tx, timer, hold);
          return null;
        }
      }
      const pending = (await recipientsOf(tx, row.id)).filter((r) => r.status === RECIPIENT_STATUS.pending);
      if (pending.length === 0) return null;
      const sent = (gate.reminders_sent ?? 0) + 1;
      await updateGate(tx, row.id, { reminders_sent: sent }, {}, now);
      await addToTimeline(
        tx,
        row.id,
        pending.map((r) => ({
          type: REMINDER_EVENT.sent,
          actor: null,
          notes: `reminder ${sent} to ${r.address}${timer.manual ? ' (asked for)' : ''}`,
        })),
      );
      await recordAudit(tx, row.account_id, {
        action: 'approval.reminder',
        resource: { type: 'action', id: row.id },
        // Recipients by id, never by address (docs/audit.md).
        details: { reminder: sent, manual: !!timer.manual, recipient_ids: pending.map((r) => r.id) },
      });
      const expiresAt = new Date(gate.expires_at ?? now);
      if (!timer.manual && gate.reminders && sent < gate.reminders.max) {
        const at = new Date(now.getTime() + this.deps.waits.wait(gate.reminders.every_ms));
        if (at < expiresAt)
          await this.deps.timers.set(
            tx,
            { actionId: row.id, kind: 'reminder', round: gate.sent_at ?? undefined, resumes: gate.resumes },
            at,
          );
      }
      const only = gate.reminders?.channels;
      const to = only
        ? pending
            .map((r) => ({ ...r, targets: r.targets.filter((t) => only.includes(t.channel)) }))
            .filter((r) => r.targets.length > 0)
        : pending;
      return { row, gate, to, expiresAt };
    });
    if (!plan) return;
    await this.messages.send(plan.row, plan.gate, plan.to, 'reminder', plan.expiresAt);
  }

  /**
   * The first message to a recipient who took over from another (app/approvals/reassign.ts), on its own channels,
   * with its own link. Sent once: a timer that fires again after the message was logged, for a recipient who has
   * answered or was handed on, or for a gate that no longer waits, does nothing. While another round is being sent
   * (`executing`), it waits a second and looks again.
   */
  async sendToReassigned(timer: GateTimer): Promise<void> {
    const now = this.deps.clock();
    const plan = await this.deps.store.transaction(async (tx) => {
      const row = await findGateAction(tx, timer.actionId, { forUpdate: true });
      const gate = row?.gate;
      if (!row || !gate?.sent_at || !timer.recipientId) return null;
      if (row.status === 'executing') {
        await this.deps.timers.set(tx, timer, new Date(now.getTime() + 1000));
        return null;
      }
      if (!WAITING.includes(row.status)) return null;
      const recipient = await findRecipient(tx, timer.recipientId, { forUpdate: true });
      if (!recipient || recipient.action_id !== row.id || recipient.status !== RECIPIENT_STATUS.pending)
        return null;
      if (await wasNotified(tx, recipient.id)) return null;
      const hold = await quietHoldUntil(tx, row.account_id, gate, now, 'request');
      if (hold) {
        await this.deps.timers.set(tx, timer, hold);
        return null;
      }
      await addToTimeline(tx, row.id, [
        {
          type: REMINDER_EVENT.sent,
          actor: null,
          notes: `request to ${recipient.address} via ${channelsOf(recipient).join(', ')}`,
        },
      ]);
      return { row, gate, recipient };
    });
    if (!plan) return;
    await this.messages.send(
      plan.row,
      plan.gate,
      [plan.recipient],
      'request',
      new Date(plan.gate.expires_at ?? now),
    );
  }
}
