import { type PreparedGate, prepareGate } from '../../domain/approval/prepare.js';
import { type ActionMode, LEGACY_ACTION_MODES } from '@sched/contract';
import type { ActionCreateParsed, RetryStrategy } from '@sched/contract';
import { validateDedupKeys } from '../../domain/coordination/dedup.js';
import { effectiveMaxAttempts, type Plan, planLimits } from '../../domain/quota/plans.js';
import { isValidTimezone, resolveSchedule } from '../../domain/schedule/resolve.js';
import { validateRecurrence } from '../../domain/schedule/recurrence.js';
import { checkDestinationUrl, type PrivateAccess } from '../../domain/destinations/policy.js';
import type {
  StoredCoordination,
  StoredRecurrence,
  StoredRequest,
  StoredWindow,
  StoredWindowState,
} from '../../persistence/entities/stored.js';
import { BUILT_IN_BOOK, type CalendarBook } from '../calendars/book.js';
import { placeFirstRun } from './first-run.js';
import { closedDaysOf, prepareWindow, storedWindow } from './window.js';
import { quietEnd } from '../../domain/window/quiet.js';

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
  /** Its delivery window, and where the window placed the first attempt (absent: at `at`). */
  window?: StoredWindow | null;
  dueAt?: Date;
  /** A series whose first occurrences the window skipped starts at this one (`at` is its time, `anchor` the series'). */
  recurrenceIndex?: number;
  anchor?: Date;
  windowState?: StoredWindowState | null;
}

export type Prepared = { ok: true; action: PreparedAction } | { ok: false; errors: Record<string, string[]> };

/** A mode given in its current or legacy name, in its current name. */
export function currentMode(mode: ActionMode | keyof typeof LEGACY_ACTION_MODES): ActionMode {
  return mode in LEGACY_ACTION_MODES
    ? LEGACY_ACTION_MODES[mode as keyof typeof LEGACY_ACTION_MODES]
    : (mode as ActionMode);
}

/**
 * Folds the deprecated names (docs/actions.md) into current ones (a current name wins when both are given),
 * validates what the schema alone cannot (timezone, schedule, destinations, plan caps, recurrence, dedup keys)
 * and resolves the schedule to an instant. Pure: `now` and the plan are inputs.
 */
export function prepareAction(
  body: ActionCreateParsed,
  ctx: { plan: Plan; now: Date; allowPrivateDestinations: PrivateAccess; calendars?: CalendarBook },
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

  if (dedupKeys.length > 0) {
    for (const [field, messages] of Object.entries(validateDedupKeys(dedupKeys))) {
      for (const m of messages) fail(field, m);
    }
  }
  if (body.coordination && dedupKeys.length === 0) fail('dedup_keys', 'is required when coordination is set');

  if (recurrence) {
    const field = body.recurrence ? 'recurrence' : 'repeat';
    for (const [path, messages] of Object.entries(validateRecurrence(recurrence, ctx.now, timezone))) {
      for (const m of messages) fail(path.replace(/^recurrence/, field), m);
    }
  }

  const book = ctx.calendars ?? BUILT_IN_BOOK;
  const window = body.delivery_window
    ? prepareWindow(body.delivery_window, timezone, book, 'delivery_window', fail)
    : null;
  if (body.gate?.quiet_hours) {
    const quietHours = prepareWindow(body.gate.quiet_hours, timezone, book, 'gate.quiet_hours', fail);
    if (gate && quietHours) gate.quiet_hours = quietHours;
  }

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const stored = window ? storedWindow(window) : null;
  const first = stored
    ? placeFirstRun({
        window: stored,
        closed: book,
        at,
        recurrence: recurrence ? { ...recurrence, timezone, policy: body.dst_policy } : null,
      })
    : null;
  if (first && !first.ok) return { ok: false, errors: { delivery_window: [first.message] } };
  let due = first?.ok ? first.at : at;
  let state = first?.ok ? first.state : null;
  // An approval's first message waits for the end of its quiet hours (its timeout counts from that send).
  const quiet = gate?.quiet_hours;
  if (quiet) {
    const end = quietEnd(quiet, due, closedDaysOf(quiet, book));
    if (end.getTime() !== due.getTime()) {
      state = {
        deferred: { from: state?.deferred?.from ?? due.toISOString(), to: end.toISOString() },
        skipped: state?.skipped ?? [],
      };
      due = end;
    }
  }
  if (due.getTime() - ctx.now.getTime() > limits.horizonDays * 86_400_000)
    return {
      ok: false,
      errors: {
        [stored ? 'delivery_window' : 'gate.quiet_hours']: [
          `its first send, ${due.toISOString()}, is beyond the ${limits.horizonDays}-day schedule horizon of the ${ctx.plan} plan`,
        ],
      },
    };
  return {
    ok: true,
    action: {
      ...(stored || due.getTime() !== at.getTime()
        ? {
            window: stored,
            dueAt: due,
            anchor: at,
            recurrenceIndex: first?.ok ? first.index : 0,
            windowState: state,
          }
        : {}),
      mode,
      name: body.name ?? defaultName(mode, request),
      description: body.description ?? null,
      timezone,
      at: first?.ok ? first.nominal : at,
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
          }
        : null,
    },
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
