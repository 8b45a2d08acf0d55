import { assertTransition } from '../../domain/action/states.js';
import { signalOf } from '../../domain/destinations/circuit.js';
import { hostOfOrigin } from '../../domain/destinations/origin.js';
import { classifyError } from '../../domain/delivery/error-class.js';
import { classifyAttempt } from '../../domain/delivery/outcome.js';
import { parseRetryAfter, retryDelayMs, shouldRetry } from '../../domain/delivery/retry-policy.js';
import { type ActionRow, lockAction, updateAction } from '../../persistence/actions.js';
import type { Sql } from '../../persistence/database.js';
import {
  type AttemptRecord,
  completeOneShots,
  latestAttempt,
  logAttempt,
} from '../../persistence/deliveries.js';
import { expiredLeases, lockExpiredLease } from '../../persistence/delivery-scan.js';
import { seriesOf } from '../actions/series.js';
import { placeRowAttempt, placeRowRun } from '../actions/window.js';
import { applyActionEvent } from '../actions/transition.js';
import type { OutboundResult } from '../ports.js';
import { TickBatch } from '../tick-batch.js';
import type { AttemptContext, DeliveryPorts } from './attempt.js';
import { CLAIMED } from './claim.js';
import { EXCERPT_BYTES } from './request.js';

const SUCCEEDED = assertTransition(CLAIMED, 'deliver_succeeded');
/** A batch of records flushes at this many rows, or this long after its first, whichever comes first. */
const RECORD_BATCH = 64;
const RECORD_WAIT_MS = 5;

type RecordPorts = Pick<
  DeliveryPorts,
  | 'store'
  | 'clock'
  | 'waits'
  | 'random'
  | 'scheduler'
  | 'callbacks'
  | 'breaker'
  | 'operatorEvents'
  | 'settled'
  | 'events'
>;

/**
 * The record stage: an attempt's answer classified (domain/delivery/outcome.ts), logged, heard by its host's circuit,
 * and applied to the action through the state table (`applyActionEvent`): done, on to its next occurrence, retried
 * later, or failed. A plain one-time success is one statement shared with the others of its turn. Also hands back
 * the attempts of workers that stopped mid-attempt (`sweep`).
 */
export class AttemptRecorder {
  /**
   * The one-time successes of a few milliseconds, in one statement: sent when RECORD_BATCH have gathered or
   * RECORD_WAIT_MS after the first, unless four are under way already: then they wait for one of those and go
   * together. A round trip and a synchronous commit cost both processes more than the rows they carry (docs/
   * performance.md), and at moderate rates responses arrive one per turn of the event loop, so a batch per turn was a
   * statement per delivery. The wait is short because an attempt sent and not yet recorded is one a worker's crash
   * would send again.
   */
  private readonly oneShots = new TickBatch<AttemptRecord, boolean>(
    async (attempts) => {
      const done = await completeOneShots(this.p.store.sql, attempts, { to: SUCCEEDED, now: this.p.clock() });
      return attempts.map((a) => done.has(a.actionId));
    },
    RECORD_BATCH,
    4,
    RECORD_WAIT_MS,
  );

  constructor(private readonly p: RecordPorts) {}

  async record(a: AttemptContext, result: OutboundResult): Promise<void> {
    const { row } = a;
    const outcome = classifyAttempt(
      result.kind === 'response' ? { kind: 'response', status: result.status } : result,
    );
    const statusCode = result.kind === 'response' ? result.status : null;
    const error =
      result.kind === 'response' ? (outcome === 'success' ? null : `HTTP ${result.status}`) : result.message;
    this.p.events?.attempted(outcome);
    const attempt: AttemptRecord = {
      actionId: row.id,
      attemptNumber: row.attempt_count,
      dueAt: a.dueAt,
      startedAt: a.started,
      durationMs: result.durationMs,
      statusCode,
      outcome,
      errorClass: classifyError(result),
      held: a.held,
      error,
      // A settlement listener may read a longer body (request.ts); the attempt log keeps its usual excerpt.
      excerpt: result.kind === 'response' ? result.bodyExcerpt.slice(0, EXCERPT_BYTES) : null,
      truncated:
        result.kind === 'response'
          ? result.bodyTruncated || result.bodyExcerpt.length > EXCERPT_BYTES
          : false,
    };
    if (outcome === 'success' && !row.recurrence && !row.callback_url && !a.listened && !a.probe && !a.late) {
      if (await this.oneShots.add(attempt)) return;
    }
    await this.p.store.transaction(async (db) => {
      // Logged here; copied onto the action by the one update of its outcome below (`latest`).
      await logAttempt(db, attempt);
      const latest = latestAttempt(attempt);
      // The origin's circuit hears of failures and probes (locked after the action's row, as the claim does).
      if (row.destination_origin)
        await this.p.breaker.observe(db, {
          accountId: row.account_id,
          origin: row.destination_origin,
          startedAt: a.started,
          now: this.p.clock(),
          signal: signalOf(outcome, attempt.errorClass),
          probe: a.probe,
        });
      if (a.late) await this.recordLate(db, a, a.late.latenessMs);
      const current = await lockAction(db, row.id);
      // The lease was lost (this worker stalled past it and another took over): the log keeps the attempt, and the
      // action its latest one, nothing else.
      if (current?.status !== 'executing' || current.attempt_count !== row.attempt_count) {
        if (current) await updateAction(db, row.id, { ...latest, updated_at: current.updated_at });
        return;
      }
      const now = this.p.clock();
      if (outcome === 'success') {
        // The listener (a chain step) keeps the response, committed with the action's success.
        if (a.listened && result.kind === 'response')
          await this.p.settled!.succeeded(db, current, { status: result.status, body: result.bodyExcerpt });
        await this.succeed(db, current, now, latest, {
          response_code: statusCode,
          duration_ms: Math.round(result.durationMs),
          attempt_number: row.attempt_count,
        });
      } else if (shouldRetry(outcome, current.attempt_count, current.max_attempts)) {
        const retryAfter =
          result.kind === 'response' ? parseRetryAfter(result.headers['retry-after'], now) : null;
        const wait = retryDelayMs(
          current.retry_strategy,
          current.attempt_count,
          retryAfter,
          this.p.random ?? Math.random,
        );
        // The retry fires inside the action's delivery window; its schedule counts from the opening.
        const placed = await placeRowAttempt(db, current, new Date(now.getTime() + this.p.waits.wait(wait)));
        await applyActionEvent(
          db,
          current,
          'deliver_failed_retryable',
          { now, nextAttemptAt: placed.at, error: error ?? undefined, set: { ...placed.changes, ...latest } },
          this.p,
        );
        this.p.events?.retried();
      } else {
        const reason = error ?? 'delivery failed';
        await applyActionEvent(
          db,
          current,
          'deliver_failed_permanently',
          { now, error: reason, statusCode, set: latest },
          this.p,
        );
      }
    });
  }

  private async recordLate(db: Sql, a: AttemptContext, latenessMs: number): Promise<void> {
    await this.p.operatorEvents?.record(db, {
      account_id: a.row.account_id,
      type: 'delivery.late',
      at: a.started,
      destination_host: a.row.destination_origin ? hostOfOrigin(a.row.destination_origin) : null,
      subject: { type: 'action', id: a.row.id },
      details: {
        name: a.row.name,
        mode: a.row.mode,
        origin: a.row.destination_origin,
        dedup_keys: a.row.dedup_keys,
        attempt: a.row.attempt_count,
        due_at: a.dueAt.toISOString(),
        lateness_ms: latenessMs,
        held_ms: a.held?.ms ?? null,
        held_by: a.held?.by ?? null,
      },
    });
  }

  /** Success: done, or, for a recurring action, on to its next occurrence (re-scheduled after each success). */
  private async succeed(
    db: Sql,
    row: ActionRow,
    now: Date,
    latest: ReturnType<typeof latestAttempt>,
    callback: { response_code: number | null; duration_ms: number; attempt_number: number },
  ) {
    const completed = row.recurrence_count + 1;
    // Its delivery window moves the next occurrence to the next opening, or skips it (app/actions/window.ts).
    const series = row.recurrence ? seriesOf(row, this.p.waits) : null;
    const placed = series
      ? await placeRowRun(db, row, series.nextAfterCurrent(completed, now), (next) =>
          series.runAfter(next.at, completed),
        )
      : null;
    const run = placed?.run ?? null;
    if (placed && run) {
      await applyActionEvent(
        db,
        row,
        'recur',
        {
          now,
          nextAttemptAt: placed.at < now ? now : placed.at,
          callback,
          set: {
            ...placed.changes,
            scheduled_for: run.at,
            attempt_count: 0,
            recurrence_count: completed,
            recurrence_index: run.index,
            last_executed_at: now,
            executed_at: now,
            reschedule_count: 0,
            ...latest,
          },
        },
        this.p,
      );
      return;
    }
    const set = {
      executed_at: now,
      ...(row.recurrence ? { recurrence_count: completed, last_executed_at: now } : {}),
      ...latest,
    };
    await applyActionEvent(db, row, 'deliver_succeeded', { now, callback, set }, this.p);
  }

  /**
   * Hands back actions whose worker stopped mid-attempt (lease expired): the lost attempt is logged and the action
   * is retried at once, or fails when that was its last attempt. Safe to run from every worker at once.
   */
  async sweep(leaseMs: number): Promise<number> {
    let swept = 0;
    for (const id of await expiredLeases(this.p.store.sql, this.p.clock())) {
      swept += await this.p.store.transaction(async (db) => {
        const now = this.p.clock();
        const row = await lockExpiredLease(db, id, now);
        if (!row) return 0;
        const started = new Date(row.lease_until!.getTime() - leaseMs);
        const error = 'the worker stopped during this attempt (its lease expired); retrying';
        // Logged as a retryable attempt that started when the lease was taken and lasted until now; copied onto the
        // action by the one update of its change below.
        const lost: AttemptRecord | null =
          row.mode === 'webhook'
            ? {
                actionId: row.id,
                attemptNumber: row.attempt_count,
                dueAt: started,
                startedAt: started,
                durationMs: now.getTime() - started.getTime(),
                statusCode: null,
                outcome: 'retryable',
                // No answer came before the lease ran out: for the inbox, a timeout.
                errorClass: 'timeout',
                error,
                excerpt: null,
                truncated: false,
              }
            : null;
        if (lost) await logAttempt(db, lost);
        const set = lost ? latestAttempt(lost) : {};
        if (row.mode === 'webhook' && row.attempt_count >= row.max_attempts) {
          const reason = 'the last attempt was lost when its worker stopped';
          await applyActionEvent(db, row, 'deliver_failed_permanently', { now, error: reason, set }, this.p);
          return 1;
        }
        await applyActionEvent(db, row, 'lease_expired', { now, error, nextAttemptAt: now, set }, this.p);
        return 1;
      });
    }
    return swept;
  }
}
