import { REMINDER_EVENT } from '@sched/contract';
import {
  type ApprovalMessage,
  type ChannelTarget,
  type MessageAttachment,
  normaliseBody,
} from '../../domain/approval/messages.js';
import { channelAllowance, monthPeriod, type Plan } from '../../domain/quota/plans.js';
import { accountPlan } from '../../persistence/accounts.js';
import type { ActionRow } from '../../persistence/actions.js';
import { attachmentFilesOf } from '../../persistence/approvals/attachments.js';
import { logNotifications, type NewNotification } from '../../persistence/approvals/message-log.js';
import type { Recipient } from '../../persistence/approvals/recipients.js';
import { addToTimeline } from '../../persistence/timeline.js';
import { mintResponseTokens } from '../../persistence/approvals/response-tokens.js';
import type { StoredGate } from '../../persistence/entities/stored.js';
import { consumeUsage, periodKey } from '../../persistence/usage-counters.js';
import type { ApprovalChannels, Clock, Log, OperatorEvents, Store } from '../ports.js';

/** What sending a round's messages needs (part of ApprovalRounds' deps, rounds.ts). */
export interface RoundMessagesDeps {
  store: Store;
  channels: ApprovalChannels;
  log: Log;
  clock: Clock;
  /** The public root for response links (read at send time: it is known only once the server listens). */
  publicUrl: () => string;
  /** Where `notification.undeliverable` is recorded for alert rules (a message this server could not send). */
  events?: OperatorEvents;
  /** Approve by replying: the domain of `reply+<token>@…` addresses; absent: approval emails carry none. */
  replyDomain?: string | null;
}

/**
 * The messages of an approval round: one link per recipient, minted before anything is sent, each message counted
 * against its channel's monthly allowance and sent through the `ApprovalChannels` port, the sends logged, and what
 * this server could not send recorded. ApprovalRounds (rounds.ts) decides who gets a message and when.
 */
export class RoundMessages {
  constructor(private readonly deps: RoundMessagesDeps) {}

  /**
   * Mints one link per recipient (committed before anything is sent, so a quick click works) and sends. The
   * round's message is rendered once: only the recipient's name and link differ between targets.
   */
  async send(
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
  sendableChannelsOf(r: Recipient): string[] {
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
  deps: RoundMessagesDeps,
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

export function channelsOf(r: Recipient): string[] {
  return [...new Set(r.targets.map((t) => t.channel))];
}
