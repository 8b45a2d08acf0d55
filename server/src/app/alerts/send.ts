import { type AlertWebhookBody, signRequest } from '@sched/contract';
import type { AlertMessage } from '../../domain/alerts/message.js';
import { describeEvent } from '../../domain/alerts/rules.js';
import { type ChannelTarget, chatTarget } from '../../domain/approval/messages.js';
import { classifyAttempt } from '../../domain/delivery/outcome.js';
import {
  CALLBACK_MAX_ATTEMPTS,
  CALLBACK_TIMEOUT_MS,
  callbackRetryDelayMs,
  type RandomSource,
} from '../../domain/delivery/retry-policy.js';
import { channelAllowance, monthPeriod } from '../../domain/quota/plans.js';
import { accountPlan } from '../../persistence/accounts.js';
import {
  type AlertNotificationRow,
  finishNotificationAttempt,
  startNotificationAttempt,
} from '../../persistence/alerts.js';
import { channelWebhook } from '../../persistence/directory.js';
import { consumeUsage, periodKey } from '../../persistence/usage-counters.js';
import type { AlertChannels, AlertJobs, Clock, Log, Outbound, Store } from '../ports.js';
import type { Waits } from '../waits.js';
import { type CountDestination, DestinationThresholdError } from '../domains/guard.js';

export interface AlertSenderDeps {
  store: Store;
  clock: Clock;
  waits: Waits;
  jobs: AlertJobs;
  channels: AlertChannels;
  outbound: Outbound;
  log: Log;
  /** The source of the retry waits' jitter (domain/delivery/retry-policy.ts); Math.random when absent. */
  random?: RandomSource;
  /** The destination threshold: each webhook, Slack or Teams alert is one send of the owner to its host. */
  countDestination?: CountDestination | undefined;
}

type Outcome = { status: 'sent' } | { status: 'retry' | 'failed'; error: string };

/**
 * Sends one alert notification: through its channel's adapter (email, SMS, Slack, Teams; the outbox when the
 * channel is not configured), or as a signed webhook through the SSRF-guarded client. The first attempt spends the
 * plan's monthly allowance of its channel (as an approval message does; webhooks spend none). A failed attempt is
 * tried again like a callback (3 tries: now, +1 min, +5 min, jittered; scaled in tests). An alert is not an action:
 * its failure is logged on the notification and never becomes an operator event, so alerts cannot alert on
 * themselves.
 */
export class AlertSender {
  constructor(private readonly deps: AlertSenderDeps) {}

  async send(notificationId: string): Promise<void> {
    const { store } = this.deps;
    // The attempt is counted before it is made: a crash after the send leaves a row that is retried, not lost.
    const n = await startNotificationAttempt(store.sql, notificationId);
    if (!n) return;
    const outcome = await this.attempt(n);
    const now = this.deps.clock();
    const retry = outcome.status === 'retry' && n.attempt_count < CALLBACK_MAX_ATTEMPTS;
    await store.transaction(async (db) => {
      await finishNotificationAttempt(db, {
        id: n.id,
        status: outcome.status === 'sent' ? 'sent' : retry ? 'pending' : 'failed',
        error: outcome.status === 'sent' ? null : outcome.error,
        now,
      });
      if (retry) {
        const wait = this.deps.waits.wait(
          callbackRetryDelayMs(n.attempt_count, this.deps.random ?? Math.random),
        );
        await this.deps.jobs.send(db, [n.id], new Date(now.getTime() + wait));
      }
    });
    if (outcome.status !== 'sent')
      this.deps.log.warn(
        {
          alertRuleId: n.rule_id,
          notificationId: n.id,
          channel: n.channel.type,
          error: outcome.error,
          retry,
        },
        'alert not sent',
      );
  }

  private async attempt(n: AlertNotificationRow): Promise<Outcome> {
    const { channel } = n;
    if (channel.type === 'webhook') {
      const refused = await this.overThreshold(n, channel.url);
      return refused ?? this.webhook(n, channel.url, channel.secret);
    }
    let target: ChannelTarget;
    if (channel.type === 'email') target = { channel: 'email', email: channel.to };
    else if (channel.type === 'sms') target = { channel: 'sms', phone: channel.to };
    else {
      const chat = await channelWebhook(this.deps.store.sql, n.account_id, channel.channel);
      if (chat?.type !== channel.type)
        return { status: 'failed', error: `the ${channel.type} channel was deleted` };
      target = chatTarget(chat);
      // Slack app mode posts to the operator's Web API, not to a host the owner chose: no threshold to count.
      if (chat.webhook_url !== null) {
        const refused = await this.overThreshold(n, chat.webhook_url);
        if (refused) return refused;
      }
    }
    // After the threshold: an alert refused there spends none of the plan's allowance.
    if (n.attempt_count === 1 && !(await this.takeAllowance(n))) {
      return { status: 'failed', error: `the monthly ${channel.type} allowance of the plan is spent` };
    }
    try {
      const receipt = await this.deps.channels.send(target, messageOf(n));
      if (receipt.ok) return { status: 'sent' };
      // A channel this server has no settings for will not be there on a retry either.
      return receipt.via === 'not_configured'
        ? { status: 'failed', error: receipt.error ?? 'not configured' }
        : { status: 'retry', error: receipt.error ?? 'not sent' };
    } catch (err) {
      return { status: 'retry', error: err instanceof Error ? err.message : String(err) };
    }
  }

  /**
   * Counts the first attempt as one send of the rule's owner to the URL's host (its retries are the same send), as a
   * callback is counted. Past the host's threshold the alert is not sent, and the notification says why.
   */
  private async overThreshold(n: AlertNotificationRow, url: string): Promise<Outcome | null> {
    const count = this.deps.countDestination;
    if (!count || n.attempt_count !== 1) return null;
    try {
      await this.deps.store.transaction((db) =>
        count(db, n.account_id, url, this.deps.clock(), { field: `channels.${n.channel_index}.url` }),
      );
      return null;
    } catch (error) {
      if (!(error instanceof DestinationThresholdError)) throw error;
      return { status: 'failed', error: `not sent: ${error.reason}` };
    }
  }

  private async takeAllowance(n: AlertNotificationRow): Promise<boolean> {
    const db = this.deps.store.sql;
    const type = n.channel.type as Exclude<typeof n.channel.type, 'webhook'>;
    const allowance = channelAllowance(await accountPlan(db, n.account_id), type);
    return consumeUsage(db, {
      accountId: n.account_id,
      period: periodKey(monthPeriod(this.deps.clock())),
      metric: allowance.metric,
      limit: allowance.limit,
    });
  }

  /** The webhook envelope, signed as webhook deliveries are; `webhook-id` is the notification's id on every try. */
  private async webhook(n: AlertNotificationRow, url: string, secret: string | undefined): Promise<Outcome> {
    const now = this.deps.clock();
    const m = n.message;
    const envelope: AlertWebhookBody = {
      id: n.id,
      type: 'alert',
      test: n.test,
      rule: { id: n.rule_id, name: m.rule_name },
      count: m.count,
      first_at: m.first_at,
      last_at: m.last_at,
      threshold: m.threshold,
      events: eventTypes(n),
      sample: m.sample.map((e) => ({ ...e, summary: describeEvent(e) })),
      sent_at: now.toISOString(),
    };
    const body = JSON.stringify(envelope);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-sched-event': 'alert',
      'x-sched-alert-rule-id': n.rule_id,
      ...(secret
        ? signRequest({ secret, messageId: n.id, timestamp: Math.floor(now.getTime() / 1000), body })
        : {}),
    };
    const result = await this.deps.outbound.send({
      url,
      method: 'POST',
      headers,
      body,
      timeoutMs: this.deps.waits.wait(CALLBACK_TIMEOUT_MS, 2_000),
      maxResponseBytes: 1024,
    });
    const outcome = classifyAttempt(
      result.kind === 'response' ? { kind: 'response', status: result.status } : result,
    );
    if (outcome === 'success') return { status: 'sent' };
    const error = result.kind === 'response' ? `HTTP ${result.status}` : result.message;
    return { status: outcome === 'permanent' ? 'failed' : 'retry', error };
  }
}

function eventTypes(n: AlertNotificationRow) {
  return [...new Set(n.message.sample.map((e) => e.type))];
}

/** The message the channel adapters render (domain/alerts/message.ts). */
function messageOf(n: AlertNotificationRow): AlertMessage {
  const m = n.message;
  return {
    kind: 'alert',
    accountId: n.account_id,
    ruleId: n.rule_id,
    ruleName: m.rule_name,
    test: n.test,
    count: m.count,
    firstAt: new Date(m.first_at),
    lastAt: new Date(m.last_at),
    threshold: m.threshold,
    events: eventTypes(n),
    lines: m.sample.map(describeEvent),
  };
}
