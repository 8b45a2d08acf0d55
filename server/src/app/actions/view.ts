import type { Action, ActionSummary } from '@sched/contract';
import type { ActionRow, DeliveryAttemptRow } from '../../persistence/action-store.js';
import { asDate, isoOrNull } from '../../persistence/db.js';

const iso = (v: Date | string) => asDate(v).toISOString();

export function actionSummary(r: ActionRow): ActionSummary {
  return {
    id: r.id,
    name: r.name,
    mode: r.mode,
    status: r.status,
    scheduled_for: iso(r.scheduled_for),
    idempotency_key: r.idempotency_key,
    dedup_keys: r.dedup_keys,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** The full action of spec 2.1. The webhook secret is never shown; `signed` says whether one is set. */
export function actionView(r: ActionRow, attempts: DeliveryAttemptRow[]): Action {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    mode: r.mode,
    status: r.status,
    timezone: r.timezone,
    scheduled_for: iso(r.scheduled_for),
    next_attempt_at:
      r.status === 'scheduled' || r.status === 'resolved' ? isoOrNull(r.next_attempt_at) : null,
    executed_at: isoOrNull(r.executed_at),
    idempotency_key: r.idempotency_key,
    dedup_keys: r.dedup_keys,
    attempt_count: r.attempt_count,
    max_attempts: r.max_attempts,
    retry_strategy: r.retry_strategy,
    manual_retry_count: r.manual_retry_count,
    is_recurring: r.recurrence !== null,
    recurrence: r.recurrence,
    recurrence_count: r.recurrence_count,
    last_executed_at: isoOrNull(r.last_executed_at),
    request: r.request,
    callback_url: r.callback_url,
    signed: r.webhook_secret !== null,
    coordination: r.coordination,
    gate: r.gate,
    delivery_attempts: attempts.map((a) => ({
      id: a.id,
      attempt_number: a.attempt_number,
      due_at: iso(a.due_at),
      started_at: iso(a.started_at),
      lateness_ms: a.lateness_ms,
      duration_ms: a.duration_ms,
      status_code: a.status_code,
      outcome: a.outcome,
      error: a.error,
      response_excerpt: a.response_excerpt,
      response_truncated: a.response_truncated,
    })),
    reminder_events: [],
    recipients: [],
    last_error: r.last_error,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}
