import type { Action, CreateActionResult, DeliveryAttempt } from '@sched/sdk';
import type { Command } from 'commander';
import { formatFields, formatTable, printText } from '../../runtime.js';

const ATTEMPT_COLUMNS = ['attempt', 'started_at', 'lateness_ms', 'status_code', 'outcome', 'error'];
// The id is what `sched approvals reassign <action-id> <recipient-id>` takes.
const RECIPIENT_COLUMNS = [
  'id',
  'email',
  'display_name',
  'role',
  'channels',
  'status',
  'responded_at',
  'comment',
];
/** `via`: where an answer came from (page, slack, email_reply, push). */
const EVENT_COLUMNS = ['time', 'event', 'actor', 'via', 'notes'];

/** Prints a create's result: the summary of a new action, or which live action made it skip. */
export function printCreated(
  cmd: Command,
  result: CreateActionResult,
  summary: (action: Action, now: Date) => string,
): void {
  if (result.skipped) {
    const { action, reason } = result;
    printText(
      cmd,
      { data: action, meta: { skipped: true, reason, existing_status: result.existingStatus } },
      `not created (${reason}): live action ${action.id} (${action.name}) is ${action.status}`,
    );
    return;
  }
  printText(cmd, { data: result.action }, summary(result.action, new Date()));
}

/** What a person sees after `actions create`: the id to keep, the status and when it fires. */
export function createdSummary(action: Action, now: Date): string {
  return [
    `scheduled action ${action.id}`,
    indent(
      formatFields([
        ['name', action.name],
        ['status', action.status],
        ['scheduled_for', `${action.scheduled_for} (${relativeTime(action.scheduled_for, now)})`],
        [
          'paused',
          action.pause
            ? `since ${action.pause.paused_at}, ${action.pause.until ? `until ${action.pause.until}` : 'until resumed'}${action.pause.note ? `: ${action.pause.note}` : ''}`
            : null,
        ],
        ['next_occurrences', action.next_occurrences?.length ? action.next_occurrences.join(', ') : null],
        ['request', action.request ? `${action.request.method} ${action.request.url}` : null],
        ...(action.recurrence ? ([['repeats', describeRecurrence(action)]] as [string, unknown][]) : []),
      ]),
    ),
  ].join('\n');
}

/**
 * `actions get` for people: the action's fields, then one row per delivery attempt; for an approval, the gate,
 * the recipients with their answers and the event timeline instead.
 */
export function describeAction(action: Action, now: Date): string {
  if (action.mode === 'approval') return describeApproval(action, now);
  const fields = formatFields([
    ...headerFields(action, now),
    ['next_attempt_at', action.next_attempt_at],
    ['executed_at', action.executed_at],
    ['request', action.request ? `${action.request.method} ${action.request.url}` : null],
    ['callback_url', action.callback_url],
    ['signed', action.signed ? 'yes' : 'no'],
    ['idempotency_key', action.idempotency_key],
    ['dedup_keys', action.dedup_keys.length ? action.dedup_keys.join(', ') : null],
    ['attempts', `${action.attempt_count} of ${action.max_attempts} (${action.retry_strategy} retries)`],
    ['manual_retries', action.manual_retry_count],
    ['repeats', action.recurrence ? describeRecurrence(action) : 'no'],
    ['last_executed_at', action.last_executed_at],
    ['last_error', action.last_error],
    ['created_at', action.created_at],
    ['updated_at', action.updated_at],
  ]);
  const rows = attemptRows(action.delivery_attempts);
  const attempts = rows.length ? indent(formatTable(rows, ATTEMPT_COLUMNS)) : '  none yet';
  const older = action.delivery_attempts_more
    ? `\n  (older attempts: sched actions attempts ${action.id})`
    : '';
  return `${fields}\n\ndelivery attempts:\n${attempts}${older}`;
}

/** Delivery attempts as the tables of `actions get` and `actions attempts` show them. */
export function attemptTable(attempts: readonly DeliveryAttempt[]) {
  return { rows: attemptRows(attempts), columns: ATTEMPT_COLUMNS };
}

function attemptRows(attempts: readonly DeliveryAttempt[]): Record<string, unknown>[] {
  return attempts.map((a) => ({
    attempt: a.attempt_number,
    started_at: a.started_at,
    lateness_ms: a.lateness_ms,
    status_code: a.status_code,
    outcome: a.outcome,
    error: a.error,
  }));
}

/** The fields every action starts with, webhook or approval. */
function headerFields(action: Action, now: Date): [string, unknown][] {
  return [
    ['id', action.id],
    ['name', action.name],
    ['description', action.description],
    ['mode', action.mode],
    ['status', action.status],
    ['timezone', action.timezone],
    ['scheduled_for', `${action.scheduled_for} (${relativeTime(action.scheduled_for, now)})`],
    [
      'paused',
      action.pause
        ? `since ${action.pause.paused_at}, ${action.pause.until ? `until ${action.pause.until}` : 'until resumed'}${action.pause.note ? `: ${action.pause.note}` : ''}`
        : null,
    ],
    ['next_occurrences', action.next_occurrences?.length ? action.next_occurrences.join(', ') : null],
  ];
}

/** An approval: common fields, the gate, one row per recipient, then the timeline of `reminder_events`. */
function describeApproval(action: Action, now: Date): string {
  const gate = action.gate;
  const fields: [string, unknown][] = [...headerFields(action, now), ['executed_at', action.executed_at]];
  if (gate) {
    fields.push(
      ['message', excerpt(gate.message, 120)],
      ['channels', gate.channels.join(', ')],
      ['confirmation', gate.confirmation_mode],
      ['buttons', gate.buttons.join(' / ')],
      ['snoozes', `${gate.snooze_count} of ${gate.max_snoozes}`],
      ['timeout', `${gate.timeout} (then ${gate.on_timeout})`],
      ['sent_at', gate.sent_at],
      ['expires_at', gate.expires_at ? `${gate.expires_at} (${relativeTime(gate.expires_at, now)})` : null],
      [
        'escalation',
        gate.escalation
          ? `${gate.escalation.contacts.join(', ')} after ${gate.escalation.after_hours}h` +
            (gate.escalated_at ? ` (escalated ${gate.escalated_at})` : '')
          : null,
      ],
      [
        'attachments',
        gate.attachments.length
          ? gate.attachments
              .map((a) => `${a.name} (${a.content_type}${a.size === null ? '' : `, ${a.size} B`})`)
              .join(', ')
          : null,
      ],
    );
  }
  fields.push(
    ['request', action.request ? `${action.request.method} ${action.request.url} (after approval)` : null],
    ['post_approval_action', gate?.post_approval_action_id ?? null],
    ['callback_url', action.callback_url],
    ['signed', action.signed ? 'yes' : 'no'],
    ['idempotency_key', action.idempotency_key],
    ['dedup_keys', action.dedup_keys.length ? action.dedup_keys.join(', ') : null],
    ['last_error', action.last_error],
    ['created_at', action.created_at],
    ['updated_at', action.updated_at],
  );
  const recipients = action.recipients.map((r) => ({
    id: r.id,
    email: r.email,
    display_name: r.display_name,
    role: r.role,
    channels: r.channels.join(','),
    status: r.status,
    responded_at: r.responded_at,
    comment: r.response_comment === null ? null : excerpt(r.response_comment, 60),
  }));
  const events = action.reminder_events.map((e) => ({
    time: e.created_at,
    event: e.event_type,
    actor: e.actor_email ?? 'system',
    via: e.channel,
    notes: e.notes === null ? null : excerpt(e.notes, 60),
  }));
  return [
    formatFields(fields),
    '',
    'recipients:',
    recipients.length ? indent(formatTable(recipients, RECIPIENT_COLUMNS)) : '  none',
    '',
    'timeline:',
    events.length ? indent(formatTable(events, EVENT_COLUMNS)) : '  nothing yet',
  ].join('\n');
}

/** One line of at most `max` characters: a table cell must not break the table. */
function excerpt(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function describeRecurrence(action: Action): string {
  const r = action.recurrence!;
  const unit = { m: 'minute', h: 'hour', d: 'day', w: 'week', M: 'month' }[r.unit];
  const every = r.frequency === 1 ? `every ${unit}` : `every ${r.frequency} ${unit}s`;
  const end =
    r.end_type === 'count'
      ? `, ${r.max_occurrences} times`
      : r.end_type === 'date'
        ? `, until ${r.end_date}`
        : '';
  return `${every}${end} (${action.recurrence_count} so far)`;
}

/** `in 9m 59s`, `2h 5m ago`: the two largest units, enough to see at a glance when something fires. */
export function relativeTime(iso: string, now: Date): string {
  const diff = Date.parse(iso) - now.getTime();
  let rest = Math.round(Math.abs(diff) / 1000);
  if (rest === 0) return 'now';
  // Two units at most, the second rounded (not cut): 6d 23h 59m 58s reads "7d", as a person would say it.
  const largest = RELATIVE_UNITS.findIndex(([size]) => rest >= size);
  const precision = RELATIVE_UNITS[Math.min(largest + 1, RELATIVE_UNITS.length - 1)]![0];
  rest = Math.round(rest / precision) * precision;
  const first = RELATIVE_UNITS.findIndex(([size]) => rest >= size);
  const parts: string[] = [];
  for (const [size, unit] of RELATIVE_UNITS.slice(first, first + 2)) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count}${unit}`);
    rest %= size;
  }
  return diff > 0 ? `in ${parts.join(' ')}` : `${parts.join(' ')} ago`;
}

const RELATIVE_UNITS = [
  [86_400, 'd'],
  [3_600, 'h'],
  [60, 'm'],
  [1, 's'],
] as const;

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
