import type { ActionEvent } from '../../domain/action/states.js';
import { parseRetryAfter, retryDelayMs, shouldRetry } from '../../domain/delivery/retry-policy.js';
import type { ActionRow } from '../../persistence/actions.js';
import type { Sql } from '../../persistence/database.js';
import { type AttemptRecord, latestAttempt } from '../../persistence/deliveries.js';
import { seriesOf } from '../actions/series.js';
import type { ActionEventChange } from '../actions/transition.js';
import { placeRowAttempt, placeRowRun } from '../actions/window.js';
import type { OutboundResult } from '../ports.js';
import type { AttemptContext, DeliveryPorts } from './attempt.js';
import { CLAIMED } from './claim.js';

/** An attempt's answer on its way to its record. */
export interface Recorded {
  a: AttemptContext;
  result: OutboundResult;
  attempt: AttemptRecord;
}

/** The action is still the recorder's: in flight under the lease this attempt took. */
export function owned(current: ActionRow, a: AttemptContext): boolean {
  return current.status === CLAIMED && current.attempt_count === a.row.attempt_count;
}

/**
 * The event an attempt's answer is for its action, and its change: done, on to its next occurrence (re-scheduled
 * after each success), retried later, or failed.
 */
export async function outcomeOf(
  db: Sql,
  current: ActionRow,
  { a, result, attempt }: Recorded,
  now: Date,
  p: Pick<DeliveryPorts, 'waits' | 'random'>,
): Promise<{ event: ActionEvent; change: ActionEventChange }> {
  const latest = latestAttempt(attempt);
  if (attempt.outcome === 'success') {
    const callback = {
      response_code: attempt.statusCode,
      duration_ms: Math.round(result.durationMs),
      attempt_number: a.row.attempt_count,
    };
    const completed = current.recurrence_count + 1;
    // Its delivery window moves the next occurrence to the next opening, or skips it (app/actions/window.ts).
    const series = current.recurrence ? seriesOf(current, p.waits) : null;
    const placed = series
      ? await placeRowRun(db, current, series.nextAfterCurrent(completed, now), (next) =>
          series.runAfter(next.at, completed),
        )
      : null;
    const run = placed?.run ?? null;
    if (placed && run) {
      const set = {
        ...placed.changes,
        scheduled_for: run.at,
        attempt_count: 0,
        recurrence_count: completed,
        recurrence_index: run.index,
        last_executed_at: now,
        executed_at: now,
        reschedule_count: 0,
        ...latest,
      };
      return {
        event: 'recur',
        change: { now, nextAttemptAt: placed.at < now ? now : placed.at, callback, set },
      };
    }
    const set = {
      executed_at: now,
      ...(current.recurrence ? { recurrence_count: completed, last_executed_at: now } : {}),
      ...latest,
    };
    return { event: 'deliver_succeeded', change: { now, callback, set } };
  }
  const error = attempt.error ?? undefined;
  if (shouldRetry(attempt.outcome, current.attempt_count, current.max_attempts)) {
    const retryAfter =
      result.kind === 'response' ? parseRetryAfter(result.headers['retry-after'], now) : null;
    const wait = retryDelayMs(
      current.retry_strategy,
      current.attempt_count,
      retryAfter,
      p.random ?? Math.random,
    );
    // The retry fires inside the action's delivery window; its schedule counts from the opening.
    const placed = await placeRowAttempt(db, current, new Date(now.getTime() + p.waits.wait(wait)));
    const set = { ...placed.changes, ...latest };
    return { event: 'deliver_failed_retryable', change: { now, nextAttemptAt: placed.at, error, set } };
  }
  const reason = error ?? 'delivery failed';
  return {
    event: 'deliver_failed_permanently',
    change: { now, error: reason, statusCode: attempt.statusCode, set: latest },
  };
}
