import {
  ACTION_STATES,
  type Action,
  type ActionState,
  type ActionStats,
  type ActionSummary,
  type Recipient as RecipientView,
} from '@sched/contract';
import { isTerminal } from '../../domain/action/states.js';
import { destinationOrigin } from '../../domain/destinations/origin.js';
import { destinationHost } from '../../domain/domains/rules.js';
import { DEFAULT_DST_POLICY } from '../../domain/schedule/resolve.js';
import { shownAddress, shownHeaders, shownText, shownUrl } from '../../domain/auth/api-key.js';
import type { ActionRow, DeliveryAttemptRow } from '../../persistence/actions.js';
import type { AttachmentMeta } from '../../persistence/approvals/attachments.js';
import type { Recipient } from '../../persistence/approvals/recipients.js';
import type { DeliveryFigures, FailingUrl } from '../../persistence/stats.js';
import type { Total } from '../../persistence/database.js';
import type { TimelineEvent } from '../../persistence/timeline.js';
import type { Waits } from '../waits.js';
import { seriesOf } from './series.js';

/** How many upcoming runs a recurring action's detail lists. */
const NEXT_OCCURRENCES = 5;
const UNSCALED: Pick<Waits, 'along'> = { along: (_anchor, nominal) => nominal };

/** A live series' next runs, the pending one first (the same reading as the delivery engine's). */
function nextOccurrences(r: ActionRow, waits: Pick<Waits, 'along'>): string[] {
  if (!r.recurrence || isTerminal(r.status)) return [];
  return seriesOf(r, waits)
    .upcoming({ index: r.recurrence_index, at: r.scheduled_for }, r.recurrence_count, NEXT_OCCURRENCES)
    .map((d) => d.toISOString());
}

/** One attempt as the API shows it (the action view and `GET /v1/actions/{id}/attempts`). */
export function attemptView(a: DeliveryAttemptRow): Action['delivery_attempts'][number] {
  return {
    id: a.id,
    attempt_number: a.attempt_number,
    due_at: a.due_at.toISOString(),
    started_at: a.started_at.toISOString(),
    lateness_ms: a.lateness_ms,
    duration_ms: a.duration_ms,
    status_code: a.status_code,
    outcome: a.outcome,
    error_class: a.error_class,
    held_ms: a.held_ms,
    held_by: a.held_by,
    error: a.error,
    response_excerpt: a.response_excerpt,
    response_truncated: a.response_truncated,
  };
}

/** The latest attempt as copied onto the action row (persistence/deliveries.ts insertAttempt). */
function lastAttempt(r: ActionRow): ActionSummary['last_attempt'] {
  if (!r.last_attempt_at) return null;
  return {
    at: r.last_attempt_at.toISOString(),
    status_code: r.last_status_code,
    error_class: r.last_error_class,
    lateness_ms: r.last_lateness_ms ?? 0,
  };
}

export function actionSummary(r: ActionRow): ActionSummary {
  return {
    id: r.id,
    name: r.name,
    mode: r.mode,
    status: r.status,
    scheduled_for: r.scheduled_for.toISOString(),
    idempotency_key: r.idempotency_key,
    dedup_keys: r.dedup_keys,
    destination_host: r.destination_host,
    last_attempt: lastAttempt(r),
    replay_of: r.replay_of,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

/** What the detail adds from other tables: the replays of the action and the bulk operations that processed it. */
export interface ActionHistory {
  replays: string[];
  bulkOperations: Action['bulk_operations'];
}

const NO_HISTORY: ActionHistory = { replays: [], bulkOperations: [] };

/** The full action, as the API answers it. The webhook secret is never shown; `signed` says whether one is set. */
/** What an approval action's view adds: its recipients, timeline and attachments. */
export interface GateDetails {
  recipients: Recipient[];
  events: TimelineEvent[];
  attachments: AttachmentMeta[];
}

const NO_GATE: GateDetails = { recipients: [], events: [], attachments: [] };

/** Header values are credentials of the destination (`Authorization`, API keys): a read-only key sees the names. */
function shownRequest(request: ActionRow['request'], credentials: boolean): ActionRow['request'] {
  if (request === null || credentials) return request;
  return { ...request, headers: shownHeaders(request.headers, credentials) };
}

/** The attempts an action's view embeds: its newest (oldest of them first), and whether older ones exist. */
export interface ShownAttempts {
  rows: DeliveryAttemptRow[];
  more: boolean;
}

/** A new action has no attempts yet. */
const NO_ATTEMPTS: ShownAttempts = { rows: [], more: false };

export function actionView(
  r: ActionRow,
  attempts: ShownAttempts = NO_ATTEMPTS,
  details: GateDetails = NO_GATE,
  credentials = true,
  history: ActionHistory = NO_HISTORY,
  waits: Pick<Waits, 'along'> = UNSCALED,
): Action {
  const { dst_policy: dstPolicy, wall_time: _wallTime, ...recurrence } = r.recurrence ?? {};
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    mode: r.mode,
    status: r.status,
    timezone: r.timezone,
    scheduled_for: r.scheduled_for.toISOString(),
    next_attempt_at:
      r.status === 'scheduled' || r.status === 'resolved' ? (r.next_attempt_at?.toISOString() ?? null) : null,
    executed_at: r.executed_at?.toISOString() ?? null,
    idempotency_key: r.idempotency_key,
    dedup_keys: r.dedup_keys,
    attempt_count: r.attempt_count,
    max_attempts: r.max_attempts,
    retry_strategy: r.retry_strategy,
    manual_retry_count: r.manual_retry_count,
    is_recurring: r.recurrence !== null,
    recurrence: r.recurrence ? (recurrence as Action['recurrence']) : null,
    recurrence_count: r.recurrence_count,
    dst_policy: r.recurrence ? (dstPolicy ?? { ...DEFAULT_DST_POLICY }) : null,
    next_occurrences: nextOccurrences(r, waits),
    // A paused action cancelled keeps the row's last pause; only a running one is shown.
    pause:
      r.pause && r.status === 'paused'
        ? { paused_at: r.pause.paused_at, until: r.pause.until, note: r.pause.note }
        : null,
    delivery_window: r.delivery_window,
    // Shown while the deferred attempt is pending; a later placement replaces it.
    deferred_by_window:
      r.window_state?.deferred &&
      (r.status === 'scheduled' || r.status === 'resolved' || r.status === 'paused')
        ? r.window_state.deferred
        : null,
    skipped_by_window: r.window_state?.skipped ?? [],
    last_executed_at: r.last_executed_at?.toISOString() ?? null,
    request: shownRequest(r.request, credentials),
    callback_url: r.callback_url === null ? null : shownUrl(r.callback_url, credentials),
    signed: r.webhook_secret !== null,
    coordination: r.coordination,
    gate: r.gate
      ? {
          message: r.gate.message,
          channels: r.gate.channels as Action['recipients'][number]['channels'],
          buttons: r.gate.buttons,
          confirmation_mode: r.gate.confirmation_mode,
          min_approvals: r.gate.min_approvals ?? null,
          required_recipients: r.gate.required_recipients ?? [],
          exclude_requester: r.gate.exclude_requester ?? null,
          slack_responders: r.gate.slack_responders ?? [],
          comment: r.gate.comment ?? 'optional',
          reminders: r.gate.reminders
            ? {
                every: r.gate.reminders.every,
                max: r.gate.reminders.max,
                channels: r.gate.reminders.channels,
              }
            : null,
          reminders_sent: r.gate.reminders_sent ?? 0,
          max_snoozes: r.gate.max_snoozes,
          snooze_count: r.gate.snooze_count,
          timeout: r.gate.timeout,
          on_timeout: r.gate.on_timeout,
          escalation: r.gate.escalation
            ? {
                contacts: r.gate.escalation.contacts.map((c) => shownAddress(c, credentials)),
                after_hours: r.gate.escalation.after_hours,
              }
            : null,
          quiet_hours: r.gate.quiet_hours ?? null,
          attachments: details.attachments.map((a) => ({
            id: a.id,
            name: a.name,
            content_type: a.content_type,
            size: a.size,
            url: a.url,
          })),
          sent_at: r.gate.sent_at,
          expires_at: r.gate.expires_at,
          escalated_at: r.gate.escalated_at,
          post_approval_action_id: r.gate.post_approval_action_id,
          fields: r.gate.fields ?? [],
          grant: r.gate.grant ? { key: r.gate.grant.key, max_ttl: r.gate.grant.max_ttl } : null,
          granted_by: r.gate.granted_by ?? null,
        }
      : null,
    delivery_attempts: attempts.rows.map(attemptView),
    delivery_attempts_more: attempts.more,
    reminder_events: details.events.map((e) => ({
      id: e.id,
      event_type: e.event_type,
      actor_email: shownAddress(e.actor_email, credentials),
      notes: shownText(e.notes, credentials),
      channel: e.channel,
      created_at: e.created_at.toISOString(),
    })),
    recipients: details.recipients.map((x) => recipientView(x, credentials)),
    // An approval's error names who declined: masked like the recipients for a key without `write`.
    last_error: shownText(r.last_error, credentials),
    last_attempt: lastAttempt(r),
    replay_of: r.replay_of,
    replays: history.replays,
    bulk_operations: history.bulkOperations,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

const HOUR_MS = 3_600_000;

/**
 * `GET /v1/stats`: every state counted (0 included) as the list shows actions; approvals waiting include chains' gate
 * steps (someone must answer them too); 24 hourly buckets ending with the current hour.
 */
export function statsView(
  counts: { byStatus: Map<ActionState, Required<Total>>; waiting: Required<Total> },
  figures: DeliveryFigures[],
  failing: FailingUrl[],
  since: Date,
  until: Date,
): ActionStats {
  const figuresOf = (f: DeliveryFigures | undefined) => ({
    attempts: f?.attempts ?? 0,
    succeeded: f?.succeeded ?? 0,
    lateness_p50_ms: f?.p50 ?? null,
    lateness_p99_ms: f?.p99 ?? null,
  });
  const total = figuresOf(figures.find((f) => f.hour === null));
  const perHour = new Map(figures.filter((f) => f.hour !== null).map((f) => [f.hour!.getTime(), f]));
  const lastHour = Math.floor(until.getTime() / HOUR_MS) * HOUR_MS;
  const hours = Array.from({ length: 24 }, (_, i) => {
    const start = lastHour - (23 - i) * HOUR_MS;
    return { start: new Date(start).toISOString(), ...figuresOf(perHour.get(start)) };
  });
  const estimated = ACTION_STATES.filter((s) => counts.byStatus.get(s)?.exact === false);
  return {
    actions_by_status: Object.fromEntries(
      ACTION_STATES.map((s) => [s, counts.byStatus.get(s)?.total ?? 0]),
    ) as Record<ActionState, number>,
    // Named only when a count is the planner's estimate, as a list's `total_exact`.
    ...(estimated.length > 0 ? { estimated_statuses: estimated } : {}),
    approvals_waiting: counts.waiting.total,
    ...(counts.waiting.exact ? {} : { approvals_waiting_exact: false }),
    failing_destinations: failingHosts(failing),
    deliveries: {
      since: since.toISOString(),
      until: until.toISOString(),
      ...total,
      success_rate: total.attempts > 0 ? total.succeeded / total.attempts : null,
      hours,
    },
  };
}

/** A recipient as the API shows it (an action's `recipients`, the pending list). */
export function recipientView(x: Recipient, credentials: boolean): RecipientView {
  return {
    id: x.id,
    // Without `write`, addresses and numbers are masked (a channel's name stays); docs/security.md.
    email: shownAddress(x.address, credentials),
    status: x.status,
    responded_at: x.responded_at?.toISOString() ?? null,
    response_comment: x.response_comment,
    display_name: shownAddress(x.display_name, credentials),
    role: x.role,
    channels: [...new Set(x.targets.map((t) => t.channel))],
    reassigned_from: x.reassigned_from,
    values: x.values ?? null,
  };
}

/**
 * The five destinations (origins) with the most failed attempts, from per-URL figures, each with its host as
 * `destination_host` names it (the failed inbox's filter); a URL that does not parse is its own destination.
 */
function failingHosts(urls: FailingUrl[]): ActionStats['failing_destinations'] {
  const origins = new Map<string, ActionStats['failing_destinations'][number]>();
  for (const u of urls) {
    // Stored requests were validated at create; an odd one is shown as it is.
    const origin = destinationOrigin(u.url) ?? u.url;
    const host = destinationHost(u.url) ?? u.url;
    const seen = origins.get(origin);
    // A URL without failures counts towards its origin's attempts (last_failed_at is null then).
    const lastFailed = u.last_failed_at?.toISOString() ?? '';
    if (!seen)
      origins.set(origin, {
        origin,
        host,
        attempts: u.attempts,
        failed: u.failed,
        last_failed_at: lastFailed,
      });
    else {
      seen.attempts += u.attempts;
      seen.failed += u.failed;
      if (lastFailed > seen.last_failed_at) seen.last_failed_at = lastFailed;
    }
  }
  return [...origins.values()]
    .filter((h) => h.failed > 0)
    .sort((a, b) => b.failed - a.failed || a.origin.localeCompare(b.origin))
    .slice(0, 5);
}
