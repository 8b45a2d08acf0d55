import {
  ActionStatus,
  DST_FOLD_POLICIES,
  DST_GAP_POLICIES,
  Duration,
  HttpMethod,
  type RecurrenceUnit,
  RetryStrategy,
  SCHEDULE_PRESETS,
  WEEKDAYS,
  WINDOW_OUTSIDE_POLICIES,
} from '@sched/contract';
import type { ActionCreateBody, ActionListQuery } from '@sched/sdk';
import { UsageError } from '../../runtime.js';

/*
 * Pure translation of `sched actions ...` flags into API requests: no I/O except through the injected
 * `readFile`, so every rule here is unit-tested without a server.
 */

/** Flags of `sched actions create`, as commander hands them over (camelCase, repeatables as arrays). */
export interface CreateActionOptions {
  url: string;
  in?: string;
  at?: string;
  preset?: string;
  method?: string;
  header?: string[];
  body?: string;
  bodyFile?: string;
  name?: string;
  description?: string;
  timezone?: string;
  idempotencyKey?: string;
  dedupKey?: string[];
  onCreate?: string;
  maxAttempts?: string;
  retryStrategy?: string;
  secret?: string;
  callbackUrl?: string;
  dstGap?: string;
  dstFold?: string;
  every?: string;
  times?: string;
  until?: string;
  window?: string;
  windowDays?: string;
  windowTimezone?: string;
  windowCalendar?: string;
  windowOutside?: string;
}

/** The `--window*` flags of `actions create` and `schedule preview`. */
export type WindowOptions = Pick<
  CreateActionOptions,
  'window' | 'windowDays' | 'windowTimezone' | 'windowCalendar' | 'windowOutside'
>;

export const METHODS = HttpMethod.options;
export const RETRY_STRATEGIES = RetryStrategy.options;
export const ON_CREATE_RULES = ['skip_if_exists', 'replace_existing'] as const;
export const STATUS_FILTERS = [...ActionStatus.options, 'pending_resolution'] as const;
export const MODE_FILTERS = ['webhook', 'approval', 'immediate', 'gated'] as const;

const EVERY = /^(\d{1,9})([mhdwM])$/;

/** Builds the `POST /v1/actions` body; throws `UsageError` (exit 2) for flags that cannot make a valid request. */
export function buildCreateBody(
  opts: CreateActionOptions,
  readFile: (path: string) => string = noFiles,
): ActionCreateBody {
  const body: ActionCreateBody = {
    request: {
      url: opts.url,
      method: parseMethod(opts.method ?? 'POST'),
      ...(opts.header?.length ? { headers: parseHeaders(opts.header) } : {}),
      ...requestBody(opts, readFile),
    },
    ...buildSchedule(opts),
  };
  if (opts.name !== undefined) body.name = opts.name;
  if (opts.description !== undefined) body.description = opts.description;
  if (opts.timezone !== undefined) body.timezone = opts.timezone;
  if (opts.idempotencyKey !== undefined) body.idempotency_key = opts.idempotencyKey;
  if (opts.dedupKey?.length) body.dedup_keys = opts.dedupKey;
  if (opts.onCreate !== undefined) {
    if (!opts.dedupKey?.length) throw new UsageError('--on-create needs at least one --dedup-key');
    body.coordination = { on_create: oneOf('--on-create', opts.onCreate, ON_CREATE_RULES) };
  }
  if (opts.maxAttempts !== undefined) body.max_attempts = positiveInt('--max-attempts', opts.maxAttempts);
  if (opts.retryStrategy !== undefined)
    body.retry_strategy = oneOf('--retry-strategy', opts.retryStrategy, RETRY_STRATEGIES);
  if (opts.secret !== undefined) body.webhook_secret = opts.secret;
  if (opts.callbackUrl !== undefined) body.callback_url = opts.callbackUrl;
  const recurrence = buildRecurrence(opts);
  if (recurrence) body.recurrence = recurrence;
  const dstPolicy = buildDstPolicy(opts);
  if (dstPolicy) body.dst_policy = dstPolicy;
  const window = buildWindow(opts);
  if (window) body.delivery_window = window;
  return body;
}

/**
 * `--window 09:00-17:00` with `--window-days mon,tue,...`, `--window-timezone`, `--window-calendar holidays:US` and
 * `--window-outside skip`: the action's delivery window (the server checks the times and the calendar).
 */
export function buildWindow(opts: WindowOptions): ActionCreateBody['delivery_window'] {
  const extras = (['windowDays', 'windowTimezone', 'windowCalendar', 'windowOutside'] as const).filter(
    (k) => opts[k] !== undefined,
  );
  if (opts.window === undefined) {
    if (extras.length > 0)
      throw new UsageError(
        '--window-days, --window-timezone, --window-calendar and --window-outside need --window',
      );
    return undefined;
  }
  const m = /^(\d{2}:\d{2})-(\d{2}:\d{2})$/.exec(opts.window.trim());
  if (!m)
    throw new UsageError(
      `--window: expected START-END as HH:MM-HH:MM (e.g. 09:00-17:00), got "${opts.window}"`,
    );
  const window: NonNullable<ActionCreateBody['delivery_window']> = { start: m[1]!, end: m[2]! };
  if (opts.windowDays !== undefined)
    window.days = opts.windowDays
      .split(',')
      .map((d) => oneOf('--window-days', d.trim().toLowerCase(), WEEKDAYS));
  if (opts.windowTimezone !== undefined) window.timezone = opts.windowTimezone;
  if (opts.windowCalendar !== undefined) window.calendar = opts.windowCalendar;
  if (opts.windowOutside !== undefined)
    window.outside = oneOf('--window-outside', opts.windowOutside, WINDOW_OUTSIDE_POLICIES);
  return window;
}

/** Registers the `--window*` flags on a command (`actions create`, `schedule preview`). */
export function windowFlags<T extends { option(flags: string, description?: string): T }>(command: T): T {
  return command
    .option(
      '--window <start-end>',
      'delivery window, HH:MM-HH:MM wall times (end before start: across midnight)',
    )
    .option(
      '--window-days <days>',
      'with --window: the days it opens, e.g. mon,tue,wed,thu,fri (default every day)',
    )
    .option('--window-timezone <iana>', "with --window: its timezone (default the action's)")
    .option(
      '--window-calendar <ref>',
      'with --window: closed days, a calendar id or holidays:US, holidays:DE-BY',
    )
    .option(
      '--window-outside <policy>',
      'with --window: defer (default) or skip (a recurrence skips that run)',
    );
}

/** `--dst-gap shift_forward|skip|same_offset` and `--dst-fold first|second|both`: the recurrence's DST policy. */
export function buildDstPolicy(
  opts: Pick<CreateActionOptions, 'dstGap' | 'dstFold' | 'every'>,
): ActionCreateBody['dst_policy'] {
  if (opts.dstGap === undefined && opts.dstFold === undefined) return undefined;
  if (opts.every === undefined) throw new UsageError('--dst-gap and --dst-fold need --every');
  return {
    gap: oneOf('--dst-gap', opts.dstGap ?? 'same_offset', DST_GAP_POLICIES),
    fold: oneOf('--dst-fold', opts.dstFold ?? 'first', DST_FOLD_POLICIES),
  };
}

/** `--in 10m` is `schedule.wait`, `--preset` is `schedule.preset`, `--at` is `scheduled_for`: exactly one. */
export function buildSchedule(
  opts: Pick<CreateActionOptions, 'in' | 'at' | 'preset'>,
): Pick<ActionCreateBody, 'schedule' | 'scheduled_for'> {
  const given = (['in', 'at', 'preset'] as const).filter((k) => opts[k] !== undefined);
  if (given.length !== 1) {
    throw new UsageError(
      given.length === 0
        ? 'say when: --in <duration> (e.g. 10m), --at <ISO time> or --preset <preset>'
        : `give only one of ${given.map((k) => `--${k}`).join(', ')}`,
    );
  }
  if (opts.in !== undefined) return { schedule: { wait: duration('--in', opts.in) } };
  if (opts.preset !== undefined)
    return { schedule: { preset: oneOf('--preset', opts.preset, SCHEDULE_PRESETS) } };
  return { scheduled_for: isoTime('--at', opts.at!) };
}

function requestBody(opts: CreateActionOptions, readFile: (path: string) => string): { body?: unknown } {
  if (opts.body !== undefined && opts.bodyFile !== undefined)
    throw new UsageError('give --body or --body-file, not both');
  if (opts.body !== undefined) return { body: parseJson('--body', opts.body) };
  if (opts.bodyFile !== undefined) {
    let text: string;
    try {
      text = readFile(opts.bodyFile);
    } catch (err) {
      throw new UsageError(`--body-file: cannot read ${opts.bodyFile}: ${(err as Error).message}`);
    }
    return { body: parseJson(`--body-file ${opts.bodyFile}`, text) };
  }
  return {};
}

function parseJson(flag: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(
      `${flag} is not valid JSON (${(err as Error).message}); quote it, e.g. --body '{"a":1}'`,
    );
  }
}

/** `--header 'Name: value'`, as curl takes it; repeated names keep the last value. */
export function parseHeaders(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const m = /^([^:]+):(.*)$/.exec(line);
    const name = m?.[1]?.trim();
    if (!m || !name || /\s/.test(name))
      throw new UsageError(`--header must look like 'Name: value', got '${line}'`);
    headers[name] = m[2]!.trim();
  }
  return headers;
}

function parseMethod(text: string): (typeof METHODS)[number] {
  return oneOf('--method', text.toUpperCase(), METHODS);
}

/** `--every 1h [--times N | --until <ISO>]`: frequency and unit (`m`inutes, `h`, `d`, `w`, `M`onths). */
export function buildRecurrence(
  opts: Pick<CreateActionOptions, 'every' | 'times' | 'until'>,
): ActionCreateBody['recurrence'] {
  if (opts.every === undefined) {
    if (opts.times !== undefined || opts.until !== undefined)
      throw new UsageError('--times and --until need --every');
    return undefined;
  }
  const m = EVERY.exec(opts.every);
  if (!m || Number(m[1]) < 1)
    throw new UsageError(
      `--every must be a whole number followed by m, h, d, w or M (months), e.g. 15m or 1d; got '${opts.every}'`,
    );
  const unit = m[2] as RecurrenceUnit;
  const frequency = Number(m[1]);
  if (opts.times !== undefined && opts.until !== undefined)
    throw new UsageError('give --times or --until, not both');
  if (opts.times !== undefined) {
    const times = positiveInt('--times', opts.times);
    if (times < 2) throw new UsageError('--times must be at least 2 (leave out --every for a single run)');
    return { frequency, unit, end_type: 'count', max_occurrences: times };
  }
  if (opts.until !== undefined)
    return { frequency, unit, end_type: 'date', end_date: isoTime('--until', opts.until) };
  return { frequency, unit, end_type: 'never' };
}

/** Flags of `sched actions list`. */
export interface ListActionsOptions {
  status?: string;
  mode?: string;
  search?: string;
  dedupKey?: string;
  recurring?: boolean;
  oneTime?: boolean;
  page?: string;
  perPage?: string;
}

export function buildListQuery(opts: ListActionsOptions): ActionListQuery {
  const query: ActionListQuery = {};
  if (opts.status !== undefined) query.status = oneOf('--status', opts.status, STATUS_FILTERS);
  if (opts.mode !== undefined) query.mode = oneOf('--mode', opts.mode, MODE_FILTERS);
  if (opts.search !== undefined) query.search = opts.search;
  if (opts.dedupKey !== undefined) query.dedup_key = opts.dedupKey;
  if (opts.recurring && opts.oneTime) throw new UsageError('give --recurring or --one-time, not both');
  if (opts.recurring) query.recurring = 'recurring';
  if (opts.oneTime) query.recurring = 'one-time';
  if (opts.page !== undefined) query.page = positiveInt('--page', opts.page);
  if (opts.perPage !== undefined) {
    query.per_page = positiveInt('--per-page', opts.perPage);
    if (query.per_page > 100) throw new UsageError('--per-page must be at most 100');
  }
  return query;
}

export type CancelTarget =
  | { by: 'id'; id: string }
  | { by: 'idempotency_key'; key: string }
  | { by: 'dedup_key'; key: string };

/** `sched actions cancel ID | --idempotency-key K | --dedup-key K`: exactly one. */
export function cancelTarget(
  id: string | undefined,
  opts: { idempotencyKey?: string; dedupKey?: string },
): CancelTarget {
  const targets: CancelTarget[] = [];
  if (id !== undefined) targets.push({ by: 'id', id });
  if (opts.idempotencyKey !== undefined) targets.push({ by: 'idempotency_key', key: opts.idempotencyKey });
  if (opts.dedupKey !== undefined) targets.push({ by: 'dedup_key', key: opts.dedupKey });
  if (targets.length !== 1)
    throw new UsageError(
      'say which action(s) to cancel: an ID, --idempotency-key <key> or --dedup-key <key>',
    );
  return targets[0]!;
}

/** Flag value checks shared by the create verbs: each throws a UsageError naming the flag. */
export function duration(flag: string, text: string): string {
  if (!Duration.safeParse(text).success) {
    throw new UsageError(
      `${flag} must be a whole number followed by s, m, h, d or w (e.g. 30s, 10m, 2h, 7d), got '${text}'`,
    );
  }
  return text;
}

export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')}; got '${value}'`);
  return value as T;
}

export function positiveInt(flag: string, text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1)
    throw new UsageError(`${flag} must be a positive whole number, got '${text}'`);
  return Number(text);
}

/** An ISO 8601 time, kept as typed: the server reads one without an offset as UTC (docs/actions.md). */
export function isoTime(flag: string, text: string): string {
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(Date.parse(text)))
    throw new UsageError(`${flag} must be an ISO 8601 time such as 2030-01-31T09:00:00Z, got '${text}'`);
  return text;
}

function noFiles(path: string): string {
  throw new Error(`reading ${path} is not available here`);
}
