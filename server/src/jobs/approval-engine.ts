import { ON_TIMEOUT, RECIPIENT_STATUS, REMINDER_EVENT } from '@sched/contract';
import type { Logger } from 'pino';
import { grantGate } from '../app/approvals/outcomes.js';
import type { ActionScheduler, CallbackOutbox, Clock, GateTimerJob, Store } from '../app/ports.js';
import type { Waits } from '../app/waits.js';
import { normaliseBody } from '../channels/render.js';
import type {
  ApprovalMessage,
  ChannelAdapter,
  ChannelName,
  ChannelTarget,
  MessageAttachment,
  Outbox,
} from '../channels/types.js';
import { type ActionState, assertTransition } from '../domain/action/states.js';
import { monthPeriod, type PlanLimits, planLimits } from '../domain/quota/plans.js';
import type { ActionRow } from '../persistence/actions.js';
import { attachmentFilesOf } from '../persistence/approvals/attachments.js';
import { findGateAction, updateGate } from '../persistence/approvals/gates.js';
import {
  accountPlan,
  logNotifications,
  type NewNotification,
} from '../persistence/approvals/notifications.js';
import { keepInOutbox } from '../persistence/approvals/outbox-messages.js';
import {
  insertRecipients,
  type Recipient,
  recipientsOf,
  wakeSnoozed,
} from '../persistence/approvals/recipients.js';
import { addReminderEvents } from '../persistence/approvals/reminder-events.js';
import { mintResponseTokens } from '../persistence/approvals/response-tokens.js';
import type { StoredGate } from '../persistence/entities/stored.js';
import { consumeUsage, periodKey, type UsageMetric } from '../persistence/usage-counters.js';
import { type JobQueue, QUEUES } from './queue.js';

export interface ApprovalEngineDeps {
  db: Store;
  queue: JobQueue;
  scheduler: ActionScheduler;
  callbacks: CallbackOutbox;
  channels: Record<ChannelName, ChannelAdapter>;
  logger: Logger;
  clock: Clock;
  waits: Waits;
  /** The public root for response links (read at send time: it is known only once the server listens). */
  publicUrl: () => string;
}

/**
 * A gate timer (pg-boss job). `round` is the `gate.sent_at` of the round that set it: a retried gate starts a new
 * round, and the escalation timer of an earlier one must not escalate the new one early.
 */
export type GateTimer = GateTimerJob;

/** Which monthly allowance a send through a channel uses (spec 8: emails and SMS count; chat on Business; push). */
const USAGE: Readonly<Record<ChannelName, { metric: UsageMetric; limit: (l: PlanLimits) => number }>> =
  Object.freeze({
    email: { metric: 'emails', limit: (l) => l.emailsPerMonth },
    sms: { metric: 'sms', limit: (l) => l.smsPerMonth },
    slack: { metric: 'chat_messages', limit: (l) => l.chatMessagesPerMonth },
    teams: { metric: 'chat_messages', limit: (l) => l.chatMessagesPerMonth },
    push: { metric: 'push_messages', limit: (l) => l.pushMessagesPerMonth },
  });

/** States in which a gate still waits for answers (a snoozed one is `scheduled` or `resolved` until its reminder). */
const WAITING: readonly ActionState[] = ['awaiting_response', 'scheduled', 'resolved'];

/**
 * Runs approval gates: sends a round of messages (the request, a reminder after a snooze, or the escalation), and
 * applies the gate's timers (timeout with `on_timeout`, escalation after `after_hours`). Answers arrive through
 * `ResponseService`.
 */
export class ApprovalEngine {
  constructor(private readonly deps: ApprovalEngineDeps) {}

  /** Sends the round due now for an action the delivery engine has just claimed (status `executing`). */
  async sendRound(row: ActionRow): Promise<void> {
    const { db } = this.deps;
    const gate = row.gate!;
    const first = gate.sent_at === null;
    const now = this.deps.clock();
    const expiresAt = first
      ? new Date(now.getTime() + this.deps.waits.wait(gate.timeout_ms))
      : new Date(gate.expires_at!);
    const kind = first ? 'request' : 'reminder';
    const all = await recipientsOf(db.sql, row.id);
    const due = all.filter(
      (r) => first || r.status === RECIPIENT_STATUS.pending || r.status === RECIPIENT_STATUS.snoozed,
    );
    await this.deliver(row, gate, due, kind, expiresAt);

    await db.transaction(async (tx) => {
      await addReminderEvents(
        tx,
        row.id,
        due.map((r) => ({
          type: REMINDER_EVENT.sent,
          actor: null,
          notes: `${kind} to ${r.address} via ${channelsOf(r).join(', ')}`,
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
        await this.deps.queue.send(
          QUEUES.gateTimer,
          { actionId: row.id, kind: 'timeout', round } satisfies GateTimer,
          { startAfter: expiresAt, db: tx },
        );
        if (gate.escalation) {
          const at = new Date(now.getTime() + this.deps.waits.wait(gate.escalation.after_hours * 3_600_000));
          if (at < expiresAt) {
            await this.deps.queue.send(
              QUEUES.gateTimer,
              { actionId: row.id, kind: 'escalation', round } satisfies GateTimer,
              { startAfter: at, db: tx },
            );
          }
        }
      }
    });
  }

  /** A gate timer fired (pg-boss job). Idempotent: a timer that no longer applies does nothing. */
  async onTimer(timer: GateTimer): Promise<void> {
    if (timer.kind === 'timeout') await this.timeout(timer.actionId);
    else await this.escalate(timer);
  }

  private async timeout(actionId: string): Promise<void> {
    const now = this.deps.clock();
    await this.deps.db.transaction(async (tx) => {
      const row = await findGateAction(tx, actionId, { forUpdate: true });
      if (!row?.gate?.expires_at) return;
      const expiresAt = new Date(row.gate.expires_at);
      // A round in flight (or a timer that fired early, or one of an earlier round): look again at the expiry.
      if (row.status === 'executing' || expiresAt.getTime() > now.getTime() + 50) {
        const at = new Date(Math.max(expiresAt.getTime(), now.getTime() + 1000));
        await this.deps.queue.send(
          QUEUES.gateTimer,
          { actionId, kind: 'timeout', round: row.gate.sent_at ?? undefined } satisfies GateTimer,
          { startAfter: at, db: tx },
        );
        return;
      }
      if (!WAITING.includes(row.status)) return;
      // A snoozed gate (scheduled) times out like a waiting one: its state is moved back first.
      const from: ActionState = row.status === 'awaiting_response' ? row.status : 'awaiting_response';
      const rule = row.gate.on_timeout;
      let status: ActionState;
      if (rule === ON_TIMEOUT.approve) {
        status = (await grantGate(tx, { ...row, status: from }, 'timeout_approve', this.deps)).status;
      } else {
        status = assertTransition(from, rule === ON_TIMEOUT.expire ? 'timeout_expire' : 'timeout_cancel');
        await updateGate(
          tx,
          actionId,
          {},
          { status, next_attempt_at: null, last_error: `no answer within ${row.gate.timeout}` },
          now,
        );
      }
      const recipients = await recipientsOf(tx, actionId);
      const pending = recipients
        .filter((r) => r.status === RECIPIENT_STATUS.pending || r.status === RECIPIENT_STATUS.snoozed)
        .map((r) => r.address);
      await addReminderEvents(tx, actionId, [
        {
          type: REMINDER_EVENT.expired,
          actor: null,
          notes: `no answer within ${row.gate.timeout}; on_timeout=${rule}`,
        },
      ]);
      await this.deps.callbacks.enqueue(tx, row, 'action.expired', {
        status,
        on_timeout: rule,
        timeout: row.gate.timeout,
        expired_at: now.toISOString(),
        pending_recipients: pending,
      });
    });
  }

  private async escalate(timer: GateTimer): Promise<void> {
    const now = this.deps.clock();
    const plan = await this.deps.db.transaction(async (tx) => {
      const row = await findGateAction(tx, timer.actionId, { forUpdate: true });
      const gate = row?.gate;
      if (!row || !gate?.escalation || gate.escalated_at) return null;
      if (timer.round !== undefined && timer.round !== gate.sent_at) return null;
      // Set before a pause's resume: the clock was moved on, and resume set the timer again (app/actions/pause.ts).
      if ((timer.resumes ?? 0) !== (gate.resumes ?? 0)) return null;
      if (!WAITING.includes(row.status)) return null;
      const recipients = await recipientsOf(tx, row.id);
      // "Without a response": any answer, a snooze included, means someone is on it.
      if (recipients.some((r) => r.status !== RECIPIENT_STATUS.pending)) return null;
      const added = await insertRecipients(
        tx,
        row.id,
        'escalation',
        gate.escalation.recipients,
        now,
        recipients.length,
      );
      await updateGate(tx, row.id, { escalated_at: now.toISOString() }, {}, now);
      await addReminderEvents(tx, row.id, [
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
    const { db } = this.deps;
    const now = this.deps.clock();
    const tokens = await mintResponseTokens(
      db.sql,
      recipients.map((r) => r.id),
      now,
    );
    const byEmail = recipients.some((r) => r.targets.some((t) => t.channel === 'email'));
    const files: MessageAttachment[] = byEmail
      ? (await attachmentFilesOf(db.sql, row.id)).map((a) => ({
          filename: a.name,
          contentType: a.content_type,
          content: a.content,
        }))
      : [];
    const limits = planLimits((await accountPlan(db.sql, row.account_id)) ?? 'free');
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
            },
            { limits, period },
          ),
        ),
      ),
    );
    await logNotifications(db.sql, sent, this.deps.clock());
  }

  /** Sends one message unless the plan's monthly allowance for its channel is spent; answers what to log. */
  private async sendOne(
    row: ActionRow,
    r: Recipient,
    target: ChannelTarget,
    message: ApprovalMessage,
    quota: { limits: PlanLimits; period: string },
  ): Promise<NewNotification> {
    const logged = { actionId: row.id, recipientId: r.id, channel: target.channel, kind: message.kind };
    const usage = USAGE[target.channel];
    const allowed = await consumeUsage(this.deps.db.sql, {
      accountId: row.account_id,
      period: quota.period,
      metric: usage.metric,
      limit: usage.limit(quota.limits),
    });
    if (!allowed) {
      return {
        ...logged,
        ok: false,
        via: 'provider',
        error: `the monthly ${usage.metric} allowance of the plan is spent`,
      };
    }
    let receipt: Awaited<ReturnType<ChannelAdapter['send']>>;
    try {
      receipt = await this.deps.channels[target.channel].send(target, message);
    } catch (err) {
      receipt = { ok: false, via: 'provider', error: (err as Error).message };
    }
    if (!receipt.ok)
      this.deps.logger.warn(
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

function channelsOf(r: Recipient): string[] {
  return [...new Set(r.targets.map((t) => t.channel))];
}

/**
 * Keeps messages of unconfigured channels in `outbox_messages` for operators (`sched outbox list`). The table holds
 * the full destination and the live response link (an operator passes them on). It logs nothing itself: the channel
 * registry's line describes the target without them, since logs travel further than the database (review M2).
 */
export function createSqlOutbox(db: Store, clock: Clock = () => new Date()): Outbox {
  return {
    async store({ channel, target, message, rendered }) {
      await keepInOutbox(db.sql, {
        actionId: message.actionId,
        channel,
        destination: destinationOf(target),
        rendered,
        now: clock(),
      });
    },
  };
}

function destinationOf(target: ChannelTarget): string {
  switch (target.channel) {
    case 'email':
      return target.email;
    case 'sms':
      return target.phone;
    case 'push':
      return target.subscription.endpoint;
    case 'slack':
    case 'teams':
      return target.webhookUrl;
  }
}
