import { readFileSync } from 'node:fs';
import type { Action, ActionSummary, CreateActionResult, SchedClient } from '@sched/sdk';
import { type Command, Option } from 'commander';
import { configureActionsReplayCommand } from './actions/replay.js';
import { type BulkFilterOptions, inboxQuery, withInboxFlags } from './bulk/filter.js';
import { configureActionsWatchCommand } from './actions-watch.js';
import { configureActionsPauseCommand } from './actions/pause.js';
import { configureActionsResumeCommand } from './actions/resume.js';
import { client, collectOption, formatFields, formatTable, print, printText, wantsJson } from '../runtime.js';
import {
  buildCreateBody,
  buildListQuery,
  type CreateActionOptions,
  cancelTarget,
  type ListActionsOptions,
  METHODS,
  MODE_FILTERS,
  ON_CREATE_RULES,
  RETRY_STRATEGIES,
  STATUS_FILTERS,
} from './actions-request.js';

const LIST_COLUMNS = ['id', 'name', 'status', 'scheduled_for'];
const ATTEMPT_COLUMNS = ['attempt', 'started_at', 'lateness_ms', 'status_code', 'outcome', 'error'];
const RECIPIENT_COLUMNS = ['email', 'display_name', 'role', 'channels', 'status', 'responded_at', 'comment'];
const EVENT_COLUMNS = ['time', 'event', 'actor', 'notes'];

/** Two weeks from today at 09:00 UTC: an example time within every plan's schedule horizon (Free: 30 days). */
const EXAMPLE_AT = `${new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10)}T09:00:00Z`;

const CREATE_EXAMPLES = `
Examples:
  $ sched actions create --url https://example.com/hook --in 10m --body '{"a":1}'
  $ sched actions create --url https://example.com/hook --preset tomorrow --timezone Europe/Berlin
  $ sched actions create --url https://example.com/hook --at ${EXAMPLE_AT} --every 1d --times 5
  $ sched actions create --url https://example.com/hook --in 1h --header 'Authorization: Bearer x' --json`;

export function configureActionsCommands(program: Command): void {
  const actions = program.command('actions').description('scheduled webhook actions');
  configureActionsCreateCommand(actions);
  configureActionsListCommand(actions);
  configureActionsGetCommand(actions);
  configureActionsCancelCommand(actions);
  configureActionsRetryCommand(actions);
  configureActionsReplayCommand(actions);
  configureActionsWatchCommand(actions);
  configureActionsPauseCommand(actions);
  configureActionsResumeCommand(actions);
}

function configureActionsCreateCommand(actions: Command): void {
  actions
    .command('create')
    .description('schedule an HTTP request')
    .requiredOption('--url <url>', 'where to send the request')
    .option('--in <duration>', 'send after a wait: 30s, 10m, 2h, 7d, 1w')
    .option('--at <time>', 'send at an ISO 8601 time (without an offset: in --timezone)')
    .option('--preset <preset>', 'tomorrow, next_week, next_monday ... next_sunday, 1h, 2h, 4h, 1d, 3d, 1w')
    .option('--method <method>', `HTTP method: ${METHODS.join(', ')} (default POST)`)
    .option('--header <header>', "request header 'Name: value' (repeatable)", collectOption)
    .option('--body <json>', 'JSON request body')
    .option('--body-file <file>', 'read the JSON request body from a file (- for stdin)')
    .option('--name <name>', 'a name (generated when omitted)')
    .option('--description <text>')
    .option('--timezone <iana>', 'timezone for presets and --at without an offset, e.g. Europe/Berlin')
    .option('--idempotency-key <key>', 'answer with the live action holding this key instead of creating')
    .option('--dedup-key <key>', 'dedup key (repeatable)', collectOption)
    .addOption(
      new Option('--on-create <rule>', 'when a live action shares a dedup key').choices(ON_CREATE_RULES),
    )
    .option('--max-attempts <n>', 'delivery attempts including the first')
    .addOption(new Option('--retry-strategy <strategy>').choices(RETRY_STRATEGIES))
    .option('--secret <secret>', 'webhook secret that signs the request (16+ printable characters)')
    .option('--callback-url <url>', 'receives action.executed and action.failed events')
    .option('--every <interval>', 'repeat: 15m, 1h, 1d, 1w, 1M (months)')
    .option('--times <n>', 'with --every: run this many times in all')
    .option('--until <time>', 'with --every: stop after this ISO 8601 time')
    .option(
      '--dst-gap <policy>',
      'with --every: a wall time in a DST gap: same_offset (default), shift_forward, skip',
    )
    .option('--dst-fold <policy>', 'with --every: a wall time in a DST fold: first (default), second, both')
    .option('--json', 'print JSON')
    .addHelpText('after', CREATE_EXAMPLES)
    .action(async (opts: CreateActionOptions, cmd: Command) => {
      const body = buildCreateBody(opts, (path) => readFileSync(path === '-' ? 0 : path, 'utf8'));
      printCreated(cmd, await client(cmd).actions.create(body), createdSummary);
    });
}

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

function configureActionsListCommand(actions: Command): void {
  const list = actions
    .command('list')
    .description('list actions, newest first')
    .addOption(new Option('--status <status>').choices(STATUS_FILTERS))
    .addOption(new Option('--mode <mode>').choices(MODE_FILTERS))
    .option('--search <text>', 'in name and description')
    .option('--dedup-key <key>')
    .option('--recurring', 'only recurring actions')
    .option('--one-time', 'only one-time actions');
  // The failed-delivery inbox: --destination-host, --last-status-code, --error-class, --failed-after ...
  withInboxFlags(list)
    .option('--page <n>', 'page number (default 1)')
    .option('--per-page <n>', 'actions per page, 1-100 (default 25)')
    .option('--all', 'fetch every page')
    .option('--json', 'print JSON')
    .action(async (opts: ListActionsOptions & BulkFilterOptions & { all?: boolean }, cmd: Command) => {
      const query = { ...buildListQuery(opts), ...inboxQuery(opts) };
      const sched = client(cmd);
      if (opts.all) {
        const data = await sched.actions.listAll(query);
        print(cmd, { data }, listTable(data));
        return;
      }
      const page = await sched.actions.list(query);
      print(cmd, page, listTable(page.data));
      if (!wantsJson(cmd) && page.meta.last_page > 1) {
        process.stdout.write(
          `page ${page.meta.current_page} of ${page.meta.last_page} (${page.meta.total} actions; --page N or --all for more)\n`,
        );
      }
    });
}

function configureActionsGetCommand(actions: Command): void {
  actions
    .command('get <id>')
    .description("show an action: its delivery attempts, or an approval's recipients and timeline")
    .option('--json', 'print JSON')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const action = await client(cmd).actions.get(id);
      printText(cmd, { data: action }, describeAction(action, new Date()));
    });
}

function configureActionsCancelCommand(actions: Command): void {
  actions
    .command('cancel [id]')
    .description('cancel an action by id, by idempotency key, or every live action sharing a dedup key')
    .option('--idempotency-key <key>', 'cancel the live action holding this idempotency key')
    .option('--dedup-key <key>', 'cancel every live action sharing this dedup key')
    .option('--json', 'print JSON')
    .action(
      async (id: string | undefined, opts: { idempotencyKey?: string; dedupKey?: string }, cmd: Command) => {
        const target = cancelTarget(id, opts);
        await cancel(client(cmd), target, cmd);
      },
    );
}

async function cancel(sched: SchedClient, target: ReturnType<typeof cancelTarget>, cmd: Command) {
  if (target.by === 'dedup_key') {
    const result = await sched.actions.cancelByCoordinationKey(target.key);
    const skipped = result.skipped > 0 ? `; ${result.skipped} already finished` : '';
    printText(cmd, result, `${result.message} sharing dedup key '${result.coordination_key}'${skipped}`);
    return;
  }
  const cancelled =
    target.by === 'id'
      ? await sched.actions.cancel(target.id)
      : await sched.actions.cancelByIdempotencyKey(target.key);
  printText(cmd, { data: cancelled }, `cancelled ${cancelled.id} (${cancelled.name})`);
}

function configureActionsRetryCommand(actions: Command): void {
  actions
    .command('retry <id>')
    .description('start a new delivery cycle of a failed action now')
    .option('--json', 'print JSON')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const retried = await client(cmd).actions.retry(id);
      printText(
        cmd,
        { data: retried },
        `retrying ${retried.id} (${retried.name}): ${retried.status}, manual retry #${retried.manual_retry_count}`,
      );
    });
}

function listTable(rows: ActionSummary[]) {
  return { rows: rows as unknown as Record<string, unknown>[], columns: LIST_COLUMNS };
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
  const rows = action.delivery_attempts.map((a) => ({
    attempt: a.attempt_number,
    started_at: a.started_at,
    lateness_ms: a.lateness_ms,
    status_code: a.status_code,
    outcome: a.outcome,
    error: a.error,
  }));
  const attempts = rows.length ? indent(formatTable(rows, ATTEMPT_COLUMNS)) : '  none yet';
  return `${fields}\n\ndelivery attempts:\n${attempts}`;
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
  const parts: string[] = [];
  for (const [size, unit] of [
    [86_400, 'd'],
    [3_600, 'h'],
    [60, 'm'],
    [1, 's'],
  ] as const) {
    if (rest >= size && parts.length < 2) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    } else if (parts.length > 0) break;
  }
  return diff > 0 ? `in ${parts.join(' ')}` : `${parts.join(' ')} ago`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
