import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { grantGate, setGate } from '../app/approvals/outcomes.js';
import type { ActionScheduler, CallbackOutbox, Clock } from '../app/ports.js';
import type {
  ApprovalMessage,
  ChannelAdapter,
  ChannelName,
  ChannelTarget,
  Outbox,
} from '../channels/types.js';
import { type ActionState, assertTransition } from '../domain/action/states.js';
import { monthPeriod, planLimits } from '../domain/quota/plans.js';
import type { ActionRow, StoredGate } from '../persistence/action-store.js';
import { approvalSql, type RecipientRow } from '../persistence/approval-store.js';
import type { Db, Sql } from '../persistence/db.js';
import { consumeUsage, periodKey, type UsageMetric } from '../persistence/usage-counters.js';
import { type JobQueue, QUEUES } from './queue.js';

export interface ApprovalEngineDeps {
  db: Db;
  queue: JobQueue;
  scheduler: ActionScheduler;
  callbacks: CallbackOutbox;
  channels: Record<ChannelName, ChannelAdapter>;
  logger: Logger;
  clock: Clock;
  timeScale: number;
  /** The public root for response links (read at send time: it is known only once the server listens). */
  publicUrl: () => string;
}

export type GateTimer = { actionId: string; kind: 'timeout' | 'escalation' };

/** Which monthly allowance a send through a channel uses (spec 8: emails and SMS count; chat messages on Business). */
const USAGE: Partial<Record<ChannelName, UsageMetric>> = {
  email: 'emails',
  sms: 'sms',
  slack: 'chat_messages',
  teams: 'chat_messages',
};

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
      ? new Date(now.getTime() + gate.timeout_ms / this.deps.timeScale)
      : new Date(gate.expires_at!);
    const all = await approvalSql.recipients(db, row.id);
    const due = all.filter((r) => first || r.status === 'pending' || r.status === 'snoozed');
    await this.deliver(row, gate, due, first ? 'request' : 'reminder', expiresAt);

    await db.transaction(async (tx) => {
      for (const r of due) {
        await approvalSql.addEvent(
          tx,
          row.id,
          'sent',
          null,
          `${first ? 'request' : 'reminder'} to ${r.address} via ${channelsOf(r).join(', ')}`,
        );
      }
      await tx.query(`update recipients set status = 'pending' where action_id = $1 and status = 'snoozed'`, [
        row.id,
      ]);
      const to = assertTransition(row.status, 'reminder_delivered');
      await setGate(
        tx,
        row,
        first ? { sent_at: now.toISOString(), expires_at: expiresAt.toISOString() } : {},
        { status: to, next_attempt_at: null },
      );
      if (first) {
        await this.deps.queue.send(
          QUEUES.gateTimer,
          { actionId: row.id, kind: 'timeout' } satisfies GateTimer,
          { startAfter: expiresAt, tx },
        );
        if (gate.escalation) {
          const at = new Date(
            now.getTime() + (gate.escalation.after_hours * 3_600_000) / this.deps.timeScale,
          );
          if (at < expiresAt) {
            await this.deps.queue.send(
              QUEUES.gateTimer,
              { actionId: row.id, kind: 'escalation' } satisfies GateTimer,
              { startAfter: at, tx },
            );
          }
        }
      }
    });
  }

  /** A gate timer fired (pg-boss job). Idempotent: a timer that no longer applies does nothing. */
  async onTimer(timer: GateTimer): Promise<void> {
    if (timer.kind === 'timeout') await this.timeout(timer.actionId);
    else await this.escalate(timer.actionId);
  }

  private async timeout(actionId: string): Promise<void> {
    const now = this.deps.clock();
    await this.deps.db.transaction(async (tx) => {
      const [row] = await tx.query<ActionRow>('select * from actions where id = $1 for update', [actionId]);
      if (!row?.gate?.expires_at) return;
      const expiresAt = new Date(row.gate.expires_at);
      // A round in flight (or a timer that fired early): look again shortly.
      if (row.status === 'executing' || expiresAt.getTime() > now.getTime() + 50) {
        const at = new Date(Math.max(expiresAt.getTime(), now.getTime() + 1000));
        await this.deps.queue.send(QUEUES.gateTimer, { actionId, kind: 'timeout' } satisfies GateTimer, {
          startAfter: at,
          tx,
        });
        return;
      }
      if (!['awaiting_response', 'scheduled', 'resolved'].includes(row.status)) return;
      // A snoozed gate (scheduled) times out like a waiting one: its state is moved back first.
      const from: ActionState = row.status === 'awaiting_response' ? row.status : 'awaiting_response';
      const rule = row.gate.on_timeout;
      let status: ActionState;
      if (rule === 'approve') {
        status = (await grantGate(tx, { ...row, status: from }, 'timeout_approve', this.deps)).status;
      } else {
        status = assertTransition(from, rule === 'expire' ? 'timeout_expire' : 'timeout_cancel');
        await setGate(
          tx,
          row,
          {},
          { status, next_attempt_at: null, last_error: `no answer within ${row.gate.timeout}` },
        );
      }
      const recipients = await approvalSql.recipients(tx, actionId);
      const pending = recipients
        .filter((r) => r.status === 'pending' || r.status === 'snoozed')
        .map((r) => r.address);
      await approvalSql.addEvent(
        tx,
        actionId,
        'expired',
        null,
        `no answer within ${row.gate.timeout}; on_timeout=${rule}`,
      );
      await this.deps.callbacks.enqueue(tx, row, 'action.expired', {
        status,
        on_timeout: rule,
        timeout: row.gate.timeout,
        expired_at: now.toISOString(),
        pending_recipients: pending,
      });
    });
  }

  private async escalate(actionId: string): Promise<void> {
    const now = this.deps.clock();
    const plan = await this.deps.db.transaction(async (tx) => {
      const [row] = await tx.query<ActionRow>('select * from actions where id = $1 for update', [actionId]);
      const gate = row?.gate;
      if (!row || !gate?.escalation || gate.escalated_at) return null;
      if (!['awaiting_response', 'scheduled', 'resolved'].includes(row.status)) return null;
      const recipients = await approvalSql.recipients(tx, actionId);
      // "Without a response": any answer, a snooze included, means someone is on it.
      if (recipients.some((r) => r.status !== 'pending')) return null;
      const added = await approvalSql.insertRecipients(
        tx,
        actionId,
        'escalation',
        gate.escalation.recipients,
        recipients.length,
      );
      await setGate(tx, row, { escalated_at: now.toISOString() });
      await approvalSql.addEvent(
        tx,
        actionId,
        'escalated',
        null,
        `no answer after ${gate.escalation.after_hours} h; escalated to ${added.map((r) => r.address).join(', ')}`,
      );
      return { row, gate, added };
    });
    if (!plan) return;
    await this.deliver(plan.row, plan.gate, plan.added, 'escalation', new Date(plan.gate.expires_at ?? now));
  }

  /** Mints one link per recipient (committed before anything is sent, so a quick click works) and sends. */
  private async deliver(
    row: ActionRow,
    gate: StoredGate,
    recipients: RecipientRow[],
    kind: ApprovalMessage['kind'],
    expiresAt: Date,
  ) {
    const { db } = this.deps;
    const tokens = await db.transaction(async (tx) => {
      const map = new Map<string, string>();
      for (const r of recipients) map.set(r.id, await approvalSql.mintToken(tx, r.id));
      return map;
    });
    const files = (await approvalSql.attachmentsWithContent(db, row.id))
      .filter((a) => a.content)
      .map((a) => ({ filename: a.name, contentType: a.content_type, content: a.content! }));
    const [account] = await db.query<{ plan: 'free' | 'pro' | 'business' }>(
      'select plan from accounts where id = $1',
      [row.account_id],
    );
    const limits = planLimits(account?.plan ?? 'free');
    const period = periodKey(monthPeriod(this.deps.clock()));
    await Promise.all(
      recipients.flatMap((r) =>
        r.targets.map(async (target) => {
          const message: ApprovalMessage = {
            actionId: row.id,
            title: row.name,
            body: gate.message,
            recipientName: r.display_name,
            responseUrl: `${this.deps.publicUrl()}/r/${tokens.get(r.id)}`,
            buttons: { confirm: gate.buttons[0], decline: gate.buttons[1] },
            snoozeAllowed: gate.snooze_count < gate.max_snoozes,
            expiresAt,
            kind,
            attachments: target.channel === 'email' ? files : [],
          };
          await this.sendOne(row, r, target, message, { limits, period });
        }),
      ),
    );
  }

  private async sendOne(
    row: ActionRow,
    r: RecipientRow,
    target: ChannelTarget,
    message: ApprovalMessage,
    quota: { limits: ReturnType<typeof planLimits>; period: string },
  ) {
    const { db } = this.deps;
    const metric = USAGE[target.channel];
    if (metric) {
      const limit =
        metric === 'emails'
          ? quota.limits.emailsPerMonth
          : metric === 'sms'
            ? quota.limits.smsPerMonth
            : quota.limits.chatMessagesPerMonth;
      if (
        !(await consumeUsage(db.typed, { accountId: row.account_id, period: quota.period, metric, limit }))
      ) {
        await approvalSql.logNotification(db, {
          actionId: row.id,
          recipientId: r.id,
          channel: target.channel,
          kind: message.kind,
          ok: false,
          via: 'provider',
          error: `the monthly ${metric} allowance of the plan is spent`,
        });
        return;
      }
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
    await approvalSql.logNotification(db, {
      actionId: row.id,
      recipientId: r.id,
      channel: target.channel,
      kind: message.kind,
      ok: receipt.ok,
      via: receipt.via,
      providerMessageId: receipt.providerMessageId,
      error: receipt.error,
    });
  }
}

function channelsOf(r: RecipientRow): string[] {
  return [...new Set(r.targets.map((t) => t.channel))];
}

/** Keeps messages of unconfigured channels in `outbox_messages` for operators (`sched outbox list`). */
export function createSqlOutbox(db: Sql, logger: Logger): Outbox {
  return {
    async store({ channel, target, message, rendered }) {
      const destination =
        target.channel === 'email'
          ? target.email
          : target.channel === 'sms'
            ? target.phone
            : target.channel === 'push'
              ? target.subscription.endpoint
              : target.webhookUrl;
      await db.query(
        `insert into outbox_messages (id, account_id, action_id, channel, destination, rendered, created_at)
         select $1, a.account_id, a.id, $3, $4, $5, now() from actions a where a.id = $2`,
        [randomUUID(), message.actionId, channel, destination, rendered],
      );
      logger.info(
        { channel, destination, actionId: message.actionId },
        'message kept in the outbox (channel not configured)',
      );
    },
  };
}
