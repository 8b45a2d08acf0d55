import { quorumRefusal } from '../../domain/approval/quorum.js';
import { recipientMatches } from '../../domain/approval/recipient-match.js';
import { type ActionMode, type CommentPolicy, type GateField, LEGACY_ACTION_MODES } from '@sched/contract';
import { agentParts } from '../approvals/fields.js';
import type {
  ActionCreateParsed,
  ConfirmationMode,
  GateInput,
  OnTimeout,
  RetryStrategy,
} from '@sched/contract';
import type { ChannelName } from '../../domain/approval/messages.js';
import { parseDuration } from '../../domain/schedule/duration.js';
import { validateDedupKeys } from '../../domain/coordination/dedup.js';
import { effectiveMaxAttempts, type Plan, planLimits } from '../../domain/quota/plans.js';
import { formatWallTime, isValidTimezone, resolveSchedule } from '../../domain/schedule/resolve.js';
import { seriesAnchor, validateRecurrence } from '../../domain/schedule/recurrence.js';
import { checkDestinationUrl } from '../../domain/destinations/policy.js';
import type {
  StoredCoordination,
  StoredRecurrence,
  StoredRequest,
} from '../../persistence/entities/stored.js';

/** An approval gate, validated; recipients are resolved later against the account's directory. */
export interface PreparedGate {
  message: string;
  recipients: string[];
  channels: ChannelName[] | undefined;
  buttons: [string, string];
  confirmation_mode: ConfirmationMode;
  min_approvals: number | null;
  required_recipients: string[];
  exclude_requester: string | null;
  comment: CommentPolicy;
  reminders: { every: string; every_ms: number; max: number; channels: ChannelName[] | null } | null;
  max_snoozes: number;
  timeout: string;
  timeoutMs: number;
  on_timeout: OnTimeout;
  escalation: { contacts: string[]; after_hours: number } | null;
  attachments: { name: string; content_type: string; content: Buffer | null; url: string | null }[];
  fields: GateField[];
  grant: { key: string; max_ttl: string; max_ttl_ms: number } | null;
}

/** Limits of attachments: count is checked by the schema; the decoded total is checked here. */
const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;
const DEFAULT_BUTTONS: [string, string] = ['Approve', 'Decline'];

/** A create request with legacy names folded in, validated and resolved: everything the insert needs. */
export interface PreparedAction {
  mode: ActionMode;
  name: string;
  description: string | null;
  timezone: string;
  at: Date;
  idempotencyKey: string | null;
  callbackUrl: string | null;
  request: StoredRequest | null;
  maxAttempts: number;
  retryStrategy: RetryStrategy;
  webhookSecret: string | null;
  dedupKeys: string[];
  coordination: StoredCoordination | null;
  recurrence: StoredRecurrence | null;
  gate: PreparedGate | null;
}

export type Prepared = { ok: true; action: PreparedAction } | { ok: false; errors: Record<string, string[]> };

/** A mode given in its current or legacy name (spec 9), in its current name. */
export function currentMode(mode: ActionMode | keyof typeof LEGACY_ACTION_MODES): ActionMode {
  return mode in LEGACY_ACTION_MODES
    ? LEGACY_ACTION_MODES[mode as keyof typeof LEGACY_ACTION_MODES]
    : (mode as ActionMode);
}

/**
 * Folds the deprecated names of spec section 9 into current ones (a current name wins when both are given),
 * validates what the schema alone cannot (timezone, schedule, destinations, plan caps, recurrence, dedup keys)
 * and resolves the schedule to an instant. Pure: `now` and the plan are inputs.
 */
export function prepareAction(
  body: ActionCreateParsed,
  ctx: { plan: Plan; now: Date; allowPrivateDestinations: boolean },
): Prepared {
  const errors: Record<string, string[]> = {};
  const fail = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message];
  };

  const mode = currentMode(body.mode ?? body.type ?? 'webhook');
  const schedule =
    body.schedule ??
    (body.intent
      ? { wait: body.intent.delay, preset: body.intent.preset, timezone: body.intent.timezone }
      : undefined);
  // `execute_at_utc` without an offset means UTC, as its name says; the others are read in the timezone.
  const scheduledFor =
    body.scheduled_for ??
    body.execute_at ??
    (body.execute_at_utc && !/(Z|[+-]\d{2}:?\d{2})$/i.test(body.execute_at_utc)
      ? `${body.execute_at_utc}Z`
      : body.execute_at_utc);
  // Errors name the field the caller sent, deprecated or not.
  const fieldNames: Record<string, string> = {
    scheduled_for:
      body.scheduled_for !== undefined
        ? 'scheduled_for'
        : body.execute_at !== undefined
          ? 'execute_at'
          : 'execute_at_utc',
    'schedule.wait': body.schedule ? 'schedule.wait' : 'intent.delay',
    'schedule.preset': body.schedule ? 'schedule.preset' : 'intent.preset',
    'schedule.timezone': body.schedule ? 'schedule.timezone' : 'intent.timezone',
  };
  const named = (field: string) => fieldNames[field] ?? field;
  const dedupKeys = [...new Set(body.dedup_keys ?? body.coordination_keys ?? [])];
  const recurrence = body.recurrence ?? body.repeat ?? null;

  const timezone = schedule?.timezone ?? body.timezone ?? 'UTC';
  const timezoneField = schedule?.timezone ? named('schedule.timezone') : 'timezone';
  if (!isValidTimezone(timezone)) fail(timezoneField, `unknown IANA timezone '${timezone}'`);
  if (body.timezone && schedule?.timezone && !isValidTimezone(body.timezone))
    fail('timezone', `unknown IANA timezone '${body.timezone}'`);

  const limits = planLimits(ctx.plan);
  let at = ctx.now;
  if (errors[timezoneField] === undefined) {
    const resolved = resolveSchedule(
      { preset: schedule?.preset, wait: schedule?.wait, scheduledFor, timezone },
      ctx.now,
      { horizonDays: limits.horizonDays, plan: ctx.plan },
    );
    if (resolved.ok) at = resolved.at;
    else fail(resolved.field === 'timezone' ? timezoneField : named(resolved.field), resolved.message);
  }

  let request: StoredRequest | null = null;
  if (body.request) {
    const check = checkDestinationUrl(body.request.url, { allowPrivate: ctx.allowPrivateDestinations });
    if (!check.ok) fail('request.url', check.message);
    for (const [name, value] of Object.entries(body.request.headers)) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
        fail(`request.headers.${name}`, 'is not a valid header name');
      else if (/[\r\n\0]/.test(value)) fail(`request.headers.${name}`, 'must not contain line breaks');
    }
    request = {
      url: body.request.url,
      method: body.request.method,
      headers: body.request.headers,
      ...(body.request.body !== undefined ? { body: body.request.body } : {}),
    };
  } else if (mode === 'webhook') {
    fail('request', 'is required in webhook mode');
  }
  let gate: PreparedGate | null = null;
  if (mode === 'approval') {
    if (!body.gate) fail('gate', 'is required in approval mode');
    else gate = prepareGate(body.gate, ctx.plan, fail);
  }

  if (body.callback_url) {
    const check = checkDestinationUrl(body.callback_url, { allowPrivate: ctx.allowPrivateDestinations });
    if (!check.ok) fail('callback_url', check.message);
  }

  const attempts = effectiveMaxAttempts(body.max_attempts, ctx.plan);
  if (!attempts.ok) fail(attempts.field, attempts.message);

  for (const [field, messages] of Object.entries(validateDedupKeys(dedupKeys))) {
    for (const m of messages) fail(field, m);
  }
  if (body.coordination && dedupKeys.length === 0) fail('dedup_keys', 'is required when coordination is set');

  if (recurrence) {
    const field = body.recurrence ? 'recurrence' : 'repeat';
    for (const [path, messages] of Object.entries(validateRecurrence(recurrence, ctx.now, timezone))) {
      for (const m of messages) fail(path.replace(/^recurrence/, field), m);
    }
  }

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  // A calendar series given a wall time is anchored on it, read by its DST policy (domain/schedule/recurrence.ts).
  const anchor = recurrence
    ? seriesAnchor({
        scheduledFor,
        at,
        interval: { frequency: recurrence.frequency, unit: recurrence.unit },
        timezone,
        policy: body.dst_policy,
        now: ctx.now,
      })
    : null;
  if (anchor) at = anchor.at;
  return {
    ok: true,
    action: {
      mode,
      name: body.name ?? defaultName(mode, request),
      description: body.description ?? null,
      timezone,
      at,
      idempotencyKey: body.idempotency_key ?? null,
      callbackUrl: body.callback_url ?? null,
      request,
      maxAttempts: attempts.ok ? attempts.maxAttempts : 1,
      retryStrategy: body.retry_strategy ?? 'exponential',
      webhookSecret: body.webhook_secret ?? null,
      gate,
      dedupKeys,
      coordination: body.coordination
        ? {
            ...(body.coordination.on_create ? { on_create: body.coordination.on_create } : {}),
            ...(body.coordination.on_execute ? { on_execute: body.coordination.on_execute } : {}),
          }
        : null,
      recurrence: recurrence
        ? {
            frequency: recurrence.frequency,
            unit: recurrence.unit,
            end_type: recurrence.end_type,
            ...(recurrence.max_occurrences !== undefined
              ? { max_occurrences: recurrence.max_occurrences }
              : {}),
            ...(recurrence.end_date !== undefined ? { end_date: recurrence.end_date } : {}),
            // Stored only when given: absent means the default policy (domain/schedule/resolve.ts).
            ...(body.dst_policy ? { dst_policy: body.dst_policy } : {}),
            ...(anchor?.wall ? { wall_time: formatWallTime(anchor.wall) } : {}),
          }
        : null,
    },
  };
}

/** Validates a gate's own fields (timeout, recipients count, escalation forms, attachments) against the plan. */
function prepareGate(
  g: GateInput,
  plan: Plan,
  fail: (field: string, message: string) => void,
): PreparedGate | null {
  const timeoutMs = parseDuration(g.timeout);
  if (timeoutMs === null) fail('gate.timeout', 'is not a valid duration');
  if (g.recipients.length > planLimits(plan).maxRecipients) {
    fail('gate.recipients', `the ${plan} plan allows at most ${planLimits(plan).maxRecipients} recipients`);
  }
  const flat = g.escalation_contacts ?? g.escalation_after_hours;
  if (g.escalation && flat !== undefined)
    fail('gate.escalation', 'give escalation or escalation_contacts/escalation_after_hours, not both');
  let escalation: PreparedGate['escalation'] = g.escalation ?? null;
  if (!escalation && flat !== undefined) {
    if (!g.escalation_contacts) fail('gate.escalation_contacts', 'is required with escalation_after_hours');
    if (g.escalation_after_hours === undefined)
      fail('gate.escalation_after_hours', 'is required with escalation_contacts');
    if (g.escalation_contacts && g.escalation_after_hours !== undefined) {
      escalation = { contacts: g.escalation_contacts, after_hours: g.escalation_after_hours };
    }
  }
  let total = 0;
  const attachments = (g.attachments ?? []).map((a, i) => {
    let content: Buffer | null = null;
    if (a.content !== undefined) {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(a.content.replace(/\s/g, '')))
        fail(`gate.attachments.${i}.content`, 'must be base64');
      content = Buffer.from(a.content, 'base64');
      total += content.length;
    }
    return { name: a.name, content_type: a.content_type, content, url: a.url ?? null };
  });
  if (total > MAX_ATTACHMENT_BYTES)
    fail('gate.attachments', `attachments may hold at most ${MAX_ATTACHMENT_BYTES} bytes in all`);
  return {
    message: g.message,
    recipients: g.recipients,
    channels: g.channels ? [...new Set(g.channels)] : undefined,
    buttons: (g.buttons as [string, string] | undefined) ?? DEFAULT_BUTTONS,
    confirmation_mode: g.confirmation_mode,
    ...quorumOf(g, fail),
    comment: g.comment,
    reminders: remindersOf(g, fail),
    max_snoozes: g.max_snoozes,
    timeout: g.timeout,
    timeoutMs: timeoutMs ?? 0,
    on_timeout: g.on_timeout,
    escalation,
    attachments,
    ...agentParts(g, fail),
  };
}

/** "POST hooks.example.com/orders" when no name is given. */
function defaultName(mode: ActionMode, request: StoredRequest | null): string {
  if (mode === 'approval') return 'Approval request';
  if (!request) return 'Webhook';
  try {
    const u = new URL(request.url);
    return `${request.method} ${u.host}${u.pathname === '/' ? '' : u.pathname}`.slice(0, 255);
  } catch {
    return `${request.method} webhook`;
  }
}

/**
 * The quorum settings of a gate, checked against its recipients: `min_approvals` 2..recipients (quorum only),
 * `required_recipients` among the recipients, and `exclude_requester` never the only path to the quorum.
 */
function quorumOf(
  g: GateInput,
  fail: (field: string, message: string) => void,
): Pick<PreparedGate, 'min_approvals' | 'required_recipients' | 'exclude_requester'> {
  const quorum = g.confirmation_mode === 'quorum';
  const min = g.min_approvals ?? null;
  if (quorum && min === null) fail('gate.min_approvals', 'is required with confirmation_mode quorum');
  if (!quorum && min !== null) fail('gate.min_approvals', 'applies only to confirmation_mode quorum');
  if (min !== null && min > g.recipients.length)
    fail('gate.min_approvals', `must be at most the number of recipients (${g.recipients.length})`);
  const required = [...new Set(g.required_recipients ?? [])];
  required.forEach((r, i) => {
    if (!g.recipients.some((x) => recipientMatches(x, r)))
      fail(`gate.required_recipients.${i}`, `'${r}' is not one of gate.recipients`);
  });
  const requester = g.exclude_requester ?? null;
  if (quorum && min !== null && requester !== null) {
    const excluded = g.recipients.filter((x) => recipientMatches(x, requester)).length;
    const refusal = quorumRefusal(
      min,
      g.recipients.length,
      excluded,
      required.some((r) => recipientMatches(requester, r)),
    );
    if (refusal) fail('gate.exclude_requester', refusal);
  }
  return { min_approvals: quorum ? min : null, required_recipients: required, exclude_requester: requester };
}

/** `gate.reminders` with its interval read (unscaled ms). */
function remindersOf(
  g: GateInput,
  fail: (field: string, message: string) => void,
): PreparedGate['reminders'] {
  if (!g.reminders) return null;
  const everyMs = parseDuration(g.reminders.every);
  if (everyMs === null || everyMs <= 0) {
    fail('gate.reminders.every', 'is not a valid duration');
    return null;
  }
  return {
    every: g.reminders.every,
    every_ms: everyMs,
    max: g.reminders.max,
    channels: g.reminders.channels ? [...new Set(g.reminders.channels)] : null,
  };
}
