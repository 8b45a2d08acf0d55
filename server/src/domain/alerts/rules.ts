import type { OperatorEventType } from '@sched/contract';

/**
 * Alert rules as pure functions (docs/alerts.md): whether an operator event matches a rule, and the rule's
 * grouping, threshold and repeat state as events arrive and time passes. Time is a parameter; the durations come in
 * already scaled (app/waits.ts), so tests at SCHED_TIME_SCALE run this same code.
 *
 * Glossary:
 * - event: a fact recorded by the service (`action.failed`, ...), with when it happened and what it is about.
 * - group: the matching events waiting to go out together as one message (`pending`).
 * - group_wait: a group goes out this long after its first event, so a burst becomes one message.
 * - threshold: with one, an event joins a group only while `count` matching events fall within `window`.
 * - repeat_every: after a message, the next one waits at least this long; events meanwhile join its group.
 */

/** The subjects an event may be about. */
export type EventSubject = { type: 'action' | 'destination' | 'bulk_operation' | 'chain'; id: string };

export interface AlertEvent {
  type: OperatorEventType;
  at: Date;
  destination_host: string | null;
  subject: EventSubject | null;
  details: Record<string, unknown>;
}

/** What matching and grouping read of a rule; durations in milliseconds of real time. */
export interface RuleTerms {
  enabled: boolean;
  events: readonly OperatorEventType[];
  filter: {
    mode?: string | undefined;
    destination_host?: string | undefined;
    /** Matched against the event's `details.origin` (deliveries and circuits carry it). */
    destination_origin?: string | undefined;
    dedup_key?: string | undefined;
  } | null;
  threshold: { count: number; windowMs: number } | null;
  /** For `delivery.late`: the lateness past which a delivery counts. */
  lateAfterMs: number | null;
  groupWaitMs: number;
  repeatEveryMs: number;
  /** Events from before the rule existed never match it. */
  createdAt: Date;
}

/** An event as a rule's state keeps it (JSON: `at` as ISO 8601). */
export interface StoredEvent {
  type: OperatorEventType;
  at: string;
  destination_host: string | null;
  subject: EventSubject | null;
  details: Record<string, unknown>;
}

/** A rule's state between evaluations, stored as JSON on the rule (epoch milliseconds). */
export interface RuleState {
  /** Threshold rules: the times of the latest matching events, at most `count`, all within `window`. */
  recent: number[];
  /** Threshold rules: the latest matching events (at most SAMPLE_SIZE), the sample of a group they open. */
  tail: StoredEvent[];
  /** The group waiting to go out, if any. */
  pending: { count: number; since: number; first_at: number; last_at: number; sample: StoredEvent[] } | null;
  /** When the last message went out, and the time of the last event it reported. */
  last_sent_at: number | null;
  reported_through: number | null;
}

/** An alert to send: what one message reports. */
export interface AlertGroup {
  count: number;
  firstAt: Date;
  lastAt: Date;
  sample: StoredEvent[];
}

/** Events shown in one message; the rest are counted. */
export const SAMPLE_SIZE = 5;

export const EMPTY_STATE: RuleState = Object.freeze({
  recent: [],
  tail: [],
  pending: null,
  last_sent_at: null,
  reported_through: null,
}) as RuleState;

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function number(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Whether `event` matches `rule`: the rule is enabled and names the event's type, the event is not older than the
 * rule, every filter field given holds (an event that does not carry the field does not match it), and a late
 * delivery is later than the rule's `late_after`.
 */
export function matchesRule(rule: RuleTerms, event: AlertEvent): boolean {
  if (!rule.enabled || !rule.events.includes(event.type)) return false;
  if (event.at.getTime() < rule.createdAt.getTime()) return false;
  const f = rule.filter;
  if (f?.mode !== undefined && text(event.details.mode) !== f.mode) return false;
  if (f?.destination_host !== undefined && event.destination_host !== f.destination_host) return false;
  if (f?.destination_origin !== undefined && text(event.details.origin) !== f.destination_origin)
    return false;
  if (f?.dedup_key !== undefined) {
    const keys = event.details.dedup_keys;
    if (!Array.isArray(keys) || !keys.includes(f.dedup_key)) return false;
  }
  if (event.type === 'delivery.late') {
    const lateness = number(event.details.lateness_ms);
    if (lateness === undefined || lateness < (rule.lateAfterMs ?? 0)) return false;
  }
  return true;
}

export function storedEvent(event: AlertEvent): StoredEvent {
  return {
    type: event.type,
    at: event.at.toISOString(),
    destination_host: event.destination_host,
    subject: event.subject,
    details: event.details,
  };
}

/** A matching event arrives: it joins the group (opening one), or, under a threshold not reached, is only counted. */
export function observe(state: RuleState, rule: RuleTerms, event: AlertEvent): RuleState {
  const t = event.at.getTime();
  const stored = storedEvent(event);
  if (!rule.threshold) {
    return { ...state, pending: join(state.pending, t, [stored]) };
  }
  const { count, windowMs } = rule.threshold;
  const recent = [...state.recent, t].filter((x) => x > t - windowMs).slice(-count);
  const tail = [...state.tail, stored].filter((e) => Date.parse(e.at) > t - windowMs).slice(-SAMPLE_SIZE);
  const next = { ...state, recent, tail };
  if (recent.length < count) return next;
  if (state.pending) return { ...next, pending: join(state.pending, t, [stored]) };
  // The condition starts (or goes on after a message): the group reports the events in the window not reported yet.
  const since = state.reported_through ?? Number.NEGATIVE_INFINITY;
  const fresh = recent.filter((x) => x > since);
  return {
    ...next,
    pending: {
      count: fresh.length,
      since: t,
      first_at: fresh[0] ?? t,
      last_at: t,
      sample: tail.filter((e) => Date.parse(e.at) > since),
    },
  };
}

function join(
  pending: RuleState['pending'],
  t: number,
  events: StoredEvent[],
): NonNullable<RuleState['pending']> {
  if (!pending)
    return { count: events.length, since: t, first_at: t, last_at: t, sample: events.slice(0, SAMPLE_SIZE) };
  return {
    ...pending,
    count: pending.count + events.length,
    first_at: Math.min(pending.first_at, t),
    last_at: Math.max(pending.last_at, t),
    sample: [...pending.sample, ...events].slice(0, SAMPLE_SIZE),
  };
}

/** When the waiting group goes out: `group_wait` after its first event, and not before `repeat_every` after the last message. */
export function sendAt(
  state: RuleState,
  rule: Pick<RuleTerms, 'groupWaitMs' | 'repeatEveryMs'>,
): number | null {
  if (!state.pending) return null;
  const grouped = state.pending.since + rule.groupWaitMs;
  return state.last_sent_at === null ? grouped : Math.max(grouped, state.last_sent_at + rule.repeatEveryMs);
}

/**
 * One evaluation of a rule at `now`: the new matching events (in time order) are observed, then the group goes out
 * if its time has come. Answers the new state, the alert to send (or null), and when to look again (or null).
 */
export function evaluateRule(
  state: RuleState,
  rule: RuleTerms,
  events: readonly AlertEvent[],
  now: Date,
): { state: RuleState; alert: AlertGroup | null; nextAt: Date | null } {
  if (!rule.enabled) return { state: { ...state, pending: null }, alert: null, nextAt: null };
  let next = state;
  for (const event of events) if (matchesRule(rule, event)) next = observe(next, rule, event);
  const at = sendAt(next, rule);
  if (at === null || !next.pending) return { state: next, alert: null, nextAt: null };
  if (at > now.getTime()) return { state: next, alert: null, nextAt: new Date(at) };
  const p = next.pending;
  return {
    state: { ...next, pending: null, last_sent_at: now.getTime(), reported_through: p.last_at },
    alert: { count: p.count, firstAt: new Date(p.first_at), lastAt: new Date(p.last_at), sample: p.sample },
    nextAt: null,
  };
}

/** A state read back from storage (null for a rule never evaluated), with what older versions lacked filled in. */
export function ruleStateOf(stored: Partial<RuleState> | null): RuleState {
  return { ...EMPTY_STATE, ...(stored ?? {}) };
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/** One line for people about one event, for every channel's message. */
export function describeEvent(e: StoredEvent): string {
  const d = e.details;
  const name = text(d.name);
  const id = e.subject?.id;
  const action = name ? `"${name}" (${id ?? '?'})` : (id ?? 'an action');
  const host = e.destination_host ? ` to ${e.destination_host}` : '';
  switch (e.type) {
    case 'action.failed': {
      const error = text(d.error);
      const attempts = number(d.attempts);
      return `Action ${action}${host} failed${attempts ? ` after ${attempts} attempt${attempts === 1 ? '' : 's'}` : ''}${error ? `: ${error}` : ''}`;
    }
    case 'approval.expired':
      return `Approval ${action} expired without an answer${text(d.on_timeout) ? ` (on_timeout ${text(d.on_timeout)})` : ''}`;
    case 'delivery.late': {
      const late = number(d.lateness_ms);
      const held = number(d.held_ms);
      return `Action ${action}${host} started ${late === undefined ? 'late' : `${seconds(late)} late`}${held ? ` (held ${seconds(held)} by ${text(d.held_by) ?? 'its destination'})` : ''}`;
    }
    case 'destination.circuit_opened':
      return `Circuit to ${e.destination_host ?? id ?? 'a destination'} opened: its deliveries wait`;
    case 'destination.circuit_closed':
      return `Circuit to ${e.destination_host ?? id ?? 'a destination'} closed: deliveries resume`;
    case 'destination.disabled':
      return `Deliveries to ${e.destination_host ?? id ?? 'a destination'} disabled until it is enabled again`;
    case 'notification.undeliverable': {
      const reason = text(d.reason);
      return `Approval ${action}: messages not sent${reason ? `: ${reason}` : ''}`;
    }
    case 'bulk_operation.completed': {
      const counts = ['affected', 'skipped', 'failed']
        .map((k) => (number(d[k]) === undefined ? null : `${number(d[k])} ${k}`))
        .filter(Boolean);
      return `Bulk ${text(d.operation) ?? 'operation'} ${id ?? ''} completed${counts.length ? `: ${counts.join(', ')}` : ''}`.replace(
        '  ',
        ' ',
      );
    }
  }
}
