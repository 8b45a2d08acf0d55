import { basename, extname } from 'node:path';
import {
  COMMENT_POLICY,
  CONFIRMATION_MODE,
  GATE_CHANNEL,
  ON_TIMEOUT as ON_TIMEOUT_MAP,
  SCHEDULE_PRESETS,
} from '@sched/contract';
import type { Action, ApprovalInput, GateChannel } from '@sched/sdk';
import { formatFields, UsageError } from '../../runtime.js';
import { relativeTime } from '../actions/show.js';
import { duration, oneOf } from '../actions/request.js';

/*
 * `sched approvals create`: flags -> `ApprovalInput` (the SDK turns it into the API body). The translation is pure
 * except for the injected `readFile`, so every rule is unit-tested without a server or files.
 */

// Choice lists for commander and `oneOf`, read from the contract's frozen maps.
export const GATE_CHANNELS = Object.values(GATE_CHANNEL);
export const ON_TIMEOUT = Object.values(ON_TIMEOUT_MAP);
export const CONFIRMATION_MODES = Object.values(CONFIRMATION_MODE);
export const COMMENT_POLICIES = Object.values(COMMENT_POLICY);

/** Flags of `sched approvals create`, as commander hands them over (camelCase, repeatables as arrays). */
export interface CreateApprovalOptions {
  to: string[];
  message: string;
  in?: string;
  at?: string;
  preset?: string;
  timezone?: string;
  timeout?: string;
  onTimeout?: string;
  mode?: string;
  minApprovals?: string;
  require?: string[];
  excludeRequester?: string;
  remindEvery?: string;
  remindMax?: string;
  remindChannel?: string[];
  comment?: string;
  maxSnoozes?: string;
  buttons?: string;
  channel?: string[];
  escalateTo?: string[];
  escalateAfter?: string;
  attach?: string[];
  thenUrl?: string;
  thenMethod?: string;
  thenBody?: string;
  secret?: string;
  callbackUrl?: string;
  name?: string;
  description?: string;
  idempotencyKey?: string;
}

/** Content types by file extension for `--attach`; anything else is sent as `application/octet-stream`. */
const CONTENT_TYPES: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.doc': 'application/msword',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xls': 'application/vnd.ms-excel',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.ppt': 'application/vnd.ms-powerpoint',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

export function contentTypeOf(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/** Builds the approval; throws `UsageError` (exit 2) for flags that cannot make a valid request. */
export function buildApprovalInput(
  opts: CreateApprovalOptions,
  readFile: (path: string) => Uint8Array = noFiles,
): ApprovalInput {
  if (opts.to.length === 0) throw new UsageError('give at least one --to');
  if (opts.message.trim() === '') throw new UsageError('--message must not be empty');
  const input: ApprovalInput = { to: opts.to, message: opts.message, ...when(opts) };
  if (opts.timezone !== undefined) input.timezone = opts.timezone;
  if (opts.timeout !== undefined) input.timeout = duration('--timeout', opts.timeout);
  if (opts.onTimeout !== undefined) input.onTimeout = oneOf('--on-timeout', opts.onTimeout, ON_TIMEOUT);
  if (opts.mode !== undefined) input.confirmationMode = oneOf('--mode', opts.mode, CONFIRMATION_MODES);
  if (opts.maxSnoozes !== undefined) {
    if (!/^\d+$/.test(opts.maxSnoozes) || Number(opts.maxSnoozes) > 10)
      throw new UsageError(`--max-snoozes must be a whole number from 0 to 10, got '${opts.maxSnoozes}'`);
    input.maxSnoozes = Number(opts.maxSnoozes);
  }
  quorum(opts, input);
  if (opts.excludeRequester !== undefined) input.excludeRequester = opts.excludeRequester;
  const reminders = buildReminders(opts);
  if (reminders) input.reminders = reminders;
  if (opts.comment !== undefined) input.commentPolicy = oneOf('--comment', opts.comment, COMMENT_POLICIES);
  if (opts.buttons !== undefined) input.buttons = buttons(opts.buttons);
  if (opts.channel?.length) {
    input.channels = [
      ...new Set(opts.channel.map((c) => oneOf('--channel', c, GATE_CHANNELS))),
    ] as GateChannel[];
  }
  const escalation = buildEscalation(opts);
  if (escalation) input.escalation = escalation;
  if (opts.attach?.length) input.attachments = opts.attach.map((path) => attachment(path, readFile));
  const request = thenRequest(opts);
  if (request) input.request = request;
  if (opts.secret !== undefined) {
    if (!request) throw new UsageError('--secret signs the post-approval request: give --then-url too');
    input.webhookSecret = opts.secret;
  }
  if (opts.callbackUrl !== undefined) input.callbackUrl = opts.callbackUrl;
  if (opts.name !== undefined) input.name = opts.name;
  if (opts.description !== undefined) input.description = opts.description;
  if (opts.idempotencyKey !== undefined) input.idempotencyKey = opts.idempotencyKey;
  return input;
}

/** `--in 10m` is `schedule.wait`, `--preset` is `schedule.preset`, `--at` is `scheduled_for`: exactly one. */
function when(opts: CreateApprovalOptions): Pick<ApprovalInput, 'schedule' | 'scheduledFor'> {
  const given = (['in', 'at', 'preset'] as const).filter((k) => opts[k] !== undefined);
  if (given.length !== 1) {
    throw new UsageError(
      given.length === 0
        ? 'say when to ask: --in <duration> (e.g. 1h), --at <ISO time> or --preset <preset>'
        : `give only one of ${given.map((k) => `--${k}`).join(', ')}`,
    );
  }
  if (opts.in !== undefined) return { schedule: { wait: duration('--in', opts.in) } };
  if (opts.preset !== undefined)
    return { schedule: { preset: oneOf('--preset', opts.preset, SCHEDULE_PRESETS) } };
  const at = opts.at!;
  if (!/^\d{4}-\d{2}-\d{2}/.test(at) || Number.isNaN(Date.parse(at)))
    throw new UsageError(`--at must be an ISO 8601 time such as 2030-01-31T09:00:00Z, got '${at}'`);
  return { scheduledFor: at };
}

/** `--min-approvals 2` and `--require <recipient>` belong to `--mode quorum`, which the first implies. */
function quorum(opts: CreateApprovalOptions, input: ApprovalInput): void {
  if (opts.minApprovals !== undefined) {
    if (!/^\d+$/.test(opts.minApprovals) || Number(opts.minApprovals) < 2)
      throw new UsageError(`--min-approvals must be a whole number, at least 2; got '${opts.minApprovals}'`);
    input.minApprovals = Number(opts.minApprovals);
    input.confirmationMode ??= 'quorum';
  }
  if (opts.require?.length) input.requiredRecipients = opts.require;
  if ((input.minApprovals !== undefined || input.requiredRecipients) && input.confirmationMode !== 'quorum')
    throw new UsageError('--min-approvals and --require need --mode quorum');
}

/** `--remind-every 1h --remind-max 2 [--remind-channel email]`: re-sends to who has not answered. */
function buildReminders(opts: CreateApprovalOptions): ApprovalInput['reminders'] {
  const channels = opts.remindChannel ?? [];
  if (opts.remindEvery === undefined && opts.remindMax === undefined && channels.length === 0)
    return undefined;
  if (opts.remindEvery === undefined)
    throw new UsageError('--remind-max and --remind-channel need --remind-every');
  const max = opts.remindMax ?? '1';
  if (!/^\d+$/.test(max) || Number(max) < 1 || Number(max) > 10)
    throw new UsageError(`--remind-max must be a whole number from 1 to 10, got '${max}'`);
  return {
    every: duration('--remind-every', opts.remindEvery),
    max: Number(max),
    ...(channels.length
      ? {
          channels: [
            ...new Set(channels.map((c) => oneOf('--remind-channel', c, GATE_CHANNELS))),
          ] as GateChannel[],
        }
      : {}),
  };
}

/** `--buttons "Ship it,Hold"`: the confirm label, then the decline label. */
function buttons(text: string): [string, string] {
  const labels = text.split(',').map((l) => l.trim());
  if (labels.length !== 2 || labels.some((l) => l === ''))
    throw new UsageError(
      `--buttons takes two labels separated by a comma, e.g. "Approve,Reject"; got '${text}'`,
    );
  return [labels[0]!, labels[1]!];
}

function buildEscalation(opts: CreateApprovalOptions): ApprovalInput['escalation'] {
  const to = opts.escalateTo ?? [];
  if (to.length === 0 && opts.escalateAfter === undefined) return undefined;
  if (to.length === 0) throw new UsageError('--escalate-after needs at least one --escalate-to');
  if (opts.escalateAfter === undefined)
    throw new UsageError('--escalate-to needs --escalate-after <hours> (at least 0.5)');
  const hours = Number(opts.escalateAfter);
  if (opts.escalateAfter.trim() === '' || !Number.isFinite(hours) || hours < 0.5)
    throw new UsageError(`--escalate-after is a number of hours, at least 0.5; got '${opts.escalateAfter}'`);
  return { contacts: to, afterHours: hours };
}

function attachment(path: string, readFile: (path: string) => Uint8Array) {
  let content: Uint8Array;
  try {
    content = readFile(path);
  } catch (err) {
    throw new UsageError(`--attach: cannot read ${path}: ${(err as Error).message}`);
  }
  return { name: basename(path), contentType: contentTypeOf(path), content };
}

/** `--then-url` (with `--then-method`, `--then-body`): the request run once the approval is confirmed. */
function thenRequest(opts: CreateApprovalOptions): ApprovalInput['request'] {
  if (opts.thenUrl === undefined) {
    if (opts.thenBody !== undefined || opts.thenMethod !== undefined)
      throw new UsageError('--then-body and --then-method need --then-url');
    return undefined;
  }
  const request: NonNullable<ApprovalInput['request']> = { url: opts.thenUrl };
  if (opts.thenMethod !== undefined)
    request.method = oneOf('--then-method', opts.thenMethod.toUpperCase(), [
      'GET',
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
    ] as const);
  if (opts.thenBody !== undefined) {
    try {
      request.body = JSON.parse(opts.thenBody);
    } catch (err) {
      throw new UsageError(
        `--then-body is not valid JSON (${(err as Error).message}); quote it, e.g. --then-body '{"a":1}'`,
      );
    }
  }
  return request;
}

function noFiles(path: string): Uint8Array {
  throw new Error(`reading ${path} is not available here`);
}

export const CREATE_EXAMPLES = `
Examples:
  $ sched approvals create --to ada@example.com --to +15551234567 --message "Ship v2?" --in 1h --timeout 1d
  $ sched approvals create --to ada@example.com --to bob@example.com --mode all_required \\
      --message "Release?" --preset tomorrow --buttons "Release,Hold" --attach notes.pdf
  $ sched approvals create --to ada@example.com --message "Deploy?" --in 10m \\
      --escalate-to boss@example.com --escalate-after 2 \\
      --then-url https://ci.example.com/deploy --then-body '{"ref":"v2"}' --secret "$DEPLOY_SECRET"`;

/** What a person sees after `approvals create`: the id to keep, when it is asked, and whom. */
export function approvalSummary(action: Action, now: Date): string {
  const gate = action.gate;
  const recipients = action.recipients.filter((r) => r.role === 'recipient');
  const fields: [string, unknown][] = [
    ['name', action.name],
    ['status', action.status],
    ['scheduled_for', `${action.scheduled_for} (${relativeTime(action.scheduled_for, now)})`],
  ];
  if (gate) {
    fields.push(
      ['confirmation', gate.confirmation_mode],
      ['timeout', `${gate.timeout} (then ${gate.on_timeout})`],
      ['buttons', gate.buttons.join(' / ')],
    );
    if (gate.escalation)
      fields.push([
        'escalation',
        `${gate.escalation.contacts.join(', ')} after ${gate.escalation.after_hours}h`,
      ]);
    if (gate.attachments.length) fields.push(['attachments', gate.attachments.map((a) => a.name).join(', ')]);
  }
  if (action.request) fields.push(['then', `${action.request.method} ${action.request.url}`]);
  const lines = recipients.map(
    (r) => `  ${r.email}${r.channels.length ? ` (${r.channels.join(', ')})` : ''}`,
  );
  return [
    `scheduled approval ${action.id}`,
    indent(formatFields(fields)),
    `  recipients:`,
    ...lines.map((l) => `  ${l}`),
  ].join('\n');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
