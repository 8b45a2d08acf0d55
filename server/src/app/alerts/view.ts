import {
  ALERT_DEFAULTS,
  type AlertChannel,
  type AlertChannelInput,
  type AlertNotification,
  type AlertRule,
  type AlertRuleSummary,
} from '@sched/contract';
import { lateAfterOf } from '../../domain/alerts/definition.js';
import { ruleStateOf } from '../../domain/alerts/rules.js';
import type { AlertNotificationRow, AlertRuleRow } from '../../persistence/alerts.js';
import { shownAddress, shownUrl } from '../../domain/auth/api-key.js';

/**
 * A channel as views show it: a webhook's secret never, only whether there is one. Without `credentials` (a key
 * without `write`) its URL shows its origin only (a path may carry a token) and an address or number is masked.
 */
function channelView(c: AlertChannelInput, credentials: boolean): AlertChannel {
  switch (c.type) {
    case 'webhook':
      return { type: 'webhook', url: shownUrl(c.url, credentials), signed: c.secret !== undefined };
    case 'email':
    case 'sms':
      return { ...c, to: shownAddress(c.to, credentials) };
    default:
      return c;
  }
}

export function notificationView(n: AlertNotificationRow): AlertNotification {
  return {
    id: n.id,
    test: n.test,
    channel: n.channel_index,
    type: n.channel.type,
    status: n.status,
    count: n.message.count,
    attempts: n.attempt_count,
    error: n.last_error,
    created_at: n.created_at.toISOString(),
    sent_at: n.sent_at?.toISOString() ?? null,
  };
}

export function ruleSummary(row: AlertRuleRow, credentials = true): AlertRuleSummary {
  const state = ruleStateOf(row.state);
  return {
    id: row.id,
    name: row.name,
    enabled: row.enabled,
    events: row.events,
    filter: row.filter,
    threshold: row.threshold,
    channels: row.channels.map((c) => channelView(c, credentials)),
    group_wait: row.group_wait ?? ALERT_DEFAULTS.group_wait,
    repeat_every: row.repeat_every ?? ALERT_DEFAULTS.repeat_every,
    late_after: lateAfterOf(row),
    state: {
      pending: state.pending?.count ?? 0,
      next_alert_at: row.next_alert_at?.toISOString() ?? null,
      last_alerted_at: row.last_alerted_at?.toISOString() ?? null,
    },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function ruleView(row: AlertRuleRow, recent: AlertNotificationRow[], credentials = true): AlertRule {
  return { ...ruleSummary(row, credentials), recent_notifications: recent.map(notificationView) };
}
