import { RECIPIENT_STATUS, REMINDER_EVENT } from '@sched/contract';
import {
  type ApprovalMessage,
  type ChannelTarget,
  type MessageAttachment,
  normaliseBody,
} from '../../domain/approval/messages.js';
import { type ActionState, assertTransition } from '../../domain/action/states.js';
import { isOnGate } from '../../domain/approval/reassign.js';
import { channelAllowance, monthPeriod, type Plan } from '../../domain/quota/plans.js';
import { accountPlan } from '../../persistence/accounts.js';
import type { ActionRow } from '../../persistence/actions.js';
import { attachmentFilesOf } from '../../persistence/approvals/attachments.js';
import { findGateAction, updateGate } from '../../persistence/approvals/gates.js';
import {
  logNotifications,
  type NewNotification,
  wasNotified,
} from '../../persistence/approvals/message-log.js';
import {
  findRecipient,
  insertRecipients,
  type Recipient,
  recipientsOf,
  wakeSnoozed,
} from '../../persistence/approvals/recipients.js';
import { addToTimeline } from '../../persistence/timeline.js';
import { quietHoldUntil } from './quiet.js';
import { recordAudit } from '../audit.js';
import { mintResponseTokens } from '../../persistence/approvals/response-tokens.js';
import type { StoredGate } from '../../persistence/entities/stored.js';
import { consumeUsage, periodKey } from '../../persistence/usage-counters.js';
import type {
  ApprovalChannels,
  Clock,
  GateRounds,
  GateTimer,
  GateTimers,
  Log,
  OperatorEvents,
  Store,
} from '../ports.js';
import type { StandingGrants } from '../grants/apply.js';
import type { Waits } from '../waits.js';

export interface ApprovalRoundsDeps {
  store: Store;
  timers: GateTimers;
  channels: ApprovalChannels;
  log: Log;
  clock: Clock;
  waits: Waits;
  /** The public root for response links (read at send time: it is known only once the server listens). */
  publicUrl: () => string;
  /** Where `notification.undeliverable` is recorded for alert rules (a message this server could not send). */
  events?: OperatorEvents;
  /** Approve by replying: the domain of `reply+<token>@…` addresses; absent: approval emails carry none. */
  replyDomain?: string | null;
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
  constructor(private readonly deps: ApprovalRoundsDeps) {}

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
    await this.deliver(row, gate, due, kind, expiresAt);

    await store.transaction(async (tx) => {
      await addToTimeline(
        tx,
        row.id,
        due
          .filter((r) => this.sendableChannelsOf(r).length > 0)
          .map((r) => ({
            type: REMINDER_EVENT.sent,
            actor: null,
            notes: `${kind} to ${r.address} via ${this.sendableChannelsOf(r).join(', ')}`,
          })),
      );
      await wakeSnoozed(tx, row.id);
      const to = assertTransition(row.status, 'reminder_delivered');
      const round = now.toISOString();
      await updateGate(
        tx,
        row.id,
        first ? { sent_at: round, expires_at: expiresAt.toISOString() } : {},
        { status: to, next_attempt_at: null },
        now,
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
    await this.deliver(plan.row, plan.gate, plan.added, 'escalation', new Date(plan.gate.expires_at ?? now));
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
    await this.deliver(plan.row, plan.gate, plan.to, 'reminder', plan.expiresAt);
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
    await this.deliver(
      plan.row,
      plan.gate,
      [plan.recipient],
      'request',
      new Date(plan.gate.expires_at ?? now),
    );
  }

  /**
   * Mints one link per recipient (committed before anything is sent, so a quick click works) and sends. The
   * round's message is rendered once: only the recipient's name and link differ between targets.
   */
  private async deliver(
    row: ActionRow,
    gate: StoredGate,
    recipients: Recipient[],
    kind: ApprovalMessage['kind'],
    expiresAt: Date,
  ) {
    const { store } = this.deps;
    const now = this.deps.clock();
    const tokens = await mintResponseTokens(
      store.sql,
      recipients.map((r) => r.id),
      now,
    );
    // A Slack app button and an email's reply address each carry a token of their own (never the page link).
    const slackRefs = await mintResponseTokens(
      store.sql,
      recipients.filter((r) => r.targets.some(isSlackAppTarget)).map((r) => r.id),
      now,
      'slack',
    );
    const replyDomain = this.deps.replyDomain;
    const replyTokens = replyDomain
      ? await mintResponseTokens(
          store.sql,
          recipients.filter((r) => r.targets.some((t) => t.channel === 'email')).map((r) => r.id),
          now,
          'reply',
        )
      : new Map<string, string>();
    const byEmail = recipients.some((r) => r.targets.some((t) => t.channel === 'email'));
    const files: MessageAttachment[] = byEmail
      ? (await attachmentFilesOf(store.sql, row.id)).map((a) => ({
          filename: a.name,
          contentType: a.content_type,
          content: a.content,
        }))
      : [];
    const plan = await accountPlan(store.sql, row.account_id);
    const period = periodKey(monthPeriod(now));
    const round = {
      actionId: row.id,
      title: row.name,
      body: normaliseBody(gate.message),
      buttons: { confirm: gate.buttons[0], decline: gate.buttons[1] },
      snoozeAllowed: gate.snooze_count < gate.max_snoozes,
      expiresAt,
      kind,
    };
    const sent = await Promise.all(
      recipients.flatMap((r) =>
        r.targets.map((target) =>
          this.sendOne(
            row,
            r,
            target,
            {
              ...round,
              recipientName: r.display_name,
              responseUrl: `${this.deps.publicUrl()}/r/${tokens.get(r.id)}`,
              attachments: target.channel === 'email' ? files : [],
              ...(isSlackAppTarget(target) ? { slackReference: slackRefs.get(r.id) } : {}),
              ...(target.channel === 'email' && replyTokens.has(r.id)
                ? { replyTo: `reply+${replyTokens.get(r.id)}@${replyDomain}` }
                : {}),
            },
            { plan, period },
          ),
        ),
      ),
    );
    await logNotifications(store.sql, sent, this.deps.clock());
    await recordUndeliverable(this.deps, row, recipients, sent);
  }

  /** A recipient's channels this server can send (all of them, unless one lacks its settings in production). */
  private sendableChannelsOf(r: Recipient): string[] {
    return channelsOf(r).filter(
      (c) => (this.deps.channels.unsendable?.(c as ChannelTarget['channel']) ?? null) === null,
    );
  }

  /** Sends one message unless the plan's monthly allowance for its channel is spent; answers what to log. */
  private async sendOne(
    row: ActionRow,
    r: Recipient,
    target: ChannelTarget,
    message: ApprovalMessage,
    quota: { plan: Plan; period: string },
  ): Promise<NewNotification> {
    const logged = { actionId: row.id, recipientId: r.id, channel: target.channel, kind: message.kind };
    // A channel this server cannot send spends no allowance; its adapter answers why (and is counted).
    const sendable = (this.deps.channels.unsendable?.(target.channel) ?? null) === null;
    const allowance = channelAllowance(quota.plan, target.channel);
    const allowed =
      !sendable ||
      (await consumeUsage(this.deps.store.sql, {
        accountId: row.account_id,
        period: quota.period,
        metric: allowance.metric,
        limit: allowance.limit,
      }));
    if (!allowed) {
      return {
        ...logged,
        ok: false,
        via: 'provider',
        error: `the monthly ${allowance.metric} allowance of the plan is spent`,
      };
    }
    let receipt: Awaited<ReturnType<ApprovalChannels['send']>>;
    try {
      receipt = await this.deps.channels.send(target, message);
    } catch (err) {
      receipt = { ok: false, via: 'provider', error: (err as Error).message };
    }
    if (!receipt.ok)
      this.deps.log.warn(
        { actionId: row.id, channel: target.channel, error: receipt.error },
        'approval message not sent',
      );
    return {
      ...logged,
      ok: receipt.ok,
      via: receipt.via,
      providerMessageId: receipt.providerMessageId,
      error: receipt.error,
    };
  }
}

/**
 * What a round could not send because this server has no settings for the channel: a `not_sent` entry per
 * recipient on the timeline and one `notification.undeliverable` operator event, in one transaction, so the
 * console, the API and alert rules all show it (never as sent).
 */
async function recordUndeliverable(
  deps: ApprovalRoundsDeps,
  row: ActionRow,
  recipients: readonly Recipient[],
  sent: readonly NewNotification[],
): Promise<void> {
  const refused = sent.filter((n) => n.via === 'not_configured');
  if (refused.length === 0) return;
  const now = deps.clock();
  const byRecipient = new Map<string, NewNotification[]>();
  for (const n of refused) byRecipient.set(n.recipientId, [...(byRecipient.get(n.recipientId) ?? []), n]);
  const channels = [...new Set(refused.map((n) => n.channel))];
  const reasons = [...new Set(refused.map((n) => n.error ?? 'not sent'))];
  await deps.store.transaction(async (tx) => {
    await addToTimeline(
      tx,
      row.id,
      [...byRecipient].map(([recipientId, ns]) => ({
        type: REMINDER_EVENT.not_sent,
        actor: null,
        notes: `${ns[0]!.kind} to ${recipients.find((r) => r.id === recipientId)?.address ?? recipientId} not sent via ${ns
          .map((n) => n.channel)
          .join(', ')}: ${[...new Set(ns.map((n) => n.error))].join('; ')}`,
      })),
    );
    await deps.events?.record(tx, {
      account_id: row.account_id,
      type: 'notification.undeliverable',
      at: now,
      destination_host: null,
      subject: { type: 'action', id: row.id },
      details: {
        name: row.name,
        mode: row.mode,
        kind: refused[0]!.kind,
        channels,
        reason: reasons.join('; '),
        recipients: byRecipient.size,
      },
    });
  });
}

function isSlackAppTarget(t: ChannelTarget): boolean {
  return t.channel === 'slack' && !('webhookUrl' in t);
}

function channelsOf(r: Recipient): string[] {
  return [...new Set(r.targets.map((t) => t.channel))];
}
