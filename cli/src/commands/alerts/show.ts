import type { AlertRule, AlertRuleSummary } from '@sched/sdk';
import { formatFields, formatTable } from '../../runtime.js';

/** A channel in a word: `email ops@example.com`, `webhook https://… (signed)`. */
function channelText(c: AlertRuleSummary['channels'][number]): string {
  switch (c.type) {
    case 'email':
    case 'sms':
      return `${c.type} ${c.to}`;
    case 'slack':
    case 'teams':
      return `${c.type} ${c.channel}`;
    case 'webhook':
      return `webhook ${c.url}${c.signed ? ' (signed)' : ''}`;
  }
}

/** Rules as a table: the columns `sched alerts list` prints. */
export function ruleTable(rows: AlertRuleSummary[]) {
  return {
    rows: rows.map((r) => ({
      id: r.id,
      name: r.name,
      enabled: r.enabled,
      events: r.events.join(','),
      channels: r.channels.map((c) => c.type).join(','),
      pending: r.state.pending,
      last_alerted_at: r.state.last_alerted_at,
    })),
    columns: ['id', 'name', 'enabled', 'events', 'channels', 'pending', 'last_alerted_at'],
  };
}

/** One rule for people: its settings, state and last messages. */
export function describeRule(r: AlertRule | AlertRuleSummary): string {
  const fields = formatFields([
    ['id', r.id],
    ['name', r.name],
    ['enabled', r.enabled],
    ['events', r.events.join(', ')],
    ['filter', r.filter],
    ['threshold', r.threshold ? `${r.threshold.count} within ${r.threshold.window}` : null],
    ['channels', r.channels.map(channelText).join('; ')],
    ['group_wait', r.group_wait],
    ['repeat_every', r.repeat_every],
    ['late_after', r.late_after],
    ['pending', r.state.pending],
    ['next_alert_at', r.state.next_alert_at],
    ['last_alerted_at', r.state.last_alerted_at],
  ]);
  if (!('recent_notifications' in r)) return fields;
  const recent = formatTable(
    r.recent_notifications.map((n) => ({ ...n, test: n.test ? 'test' : '' })),
    ['created_at', 'type', 'status', 'count', 'attempts', 'test', 'error'],
  );
  return `${fields}\n\nrecent messages\n${recent}`;
}
