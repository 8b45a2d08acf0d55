import { randomUUID } from 'node:crypto';
import { signRequest } from '@sched/contract';
import type { Logger } from 'pino';
import type { ActionScheduler, CallbackOutbox, Clock } from '../app/ports.js';
import { type ActionEvent, type ActionState, assertTransition } from '../domain/action/states.js';
import { decideOnExecute, defaultNotMetPolicy, onConditionNotMet } from '../domain/coordination/dedup.js';
import { classifyAttempt, type DeliveryOutcome } from '../domain/delivery/outcome.js';
import { parseRetryAfter, retryDelayMs, shouldRetry } from '../domain/delivery/retry-policy.js';
import { isRecurrenceFinished, nextOccurrence } from '../domain/schedule/recurrence.js';
import { parseTimestamp } from '../domain/schedule/resolve.js';
import type { Metrics } from '../metrics.js';
import type { ApprovalEngine } from './approval-engine.js';
import type { OutboundClient, OutboundResult } from '../outbound/http-client.js';
import { type ActionRow, actionSql } from '../persistence/action-store.js';
import { asDate, type Db, type Sql } from '../persistence/db.js';

/** Spec 7: outgoing requests time out after 30 s. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Stored response excerpt of each attempt. */
export const EXCERPT_BYTES = 2048;
/** A claimed attempt is owned for its request timeout plus this margin; past it, a sweeper hands it to another worker. */
export const LEASE_MARGIN_MS = 15_000;
/** Floors under SCHED_TIME_SCALE, so scaled tests still give a loopback request time to answer. */
const MIN_TIMEOUT_MS = 2_000;
const MIN_LEASE_MARGIN_MS = 3_000;
/** A timer may fire a hair before the database clock agrees the attempt is due. */
const CLAIM_TOLERANCE_MS = 25;
/** States an attempt is claimed from, and the state it is claimed into, as the state table says. */
const CLAIMABLE: ActionState[] = ['scheduled', 'resolved'];
const CLAIMED: ActionState = assertTransition(assertTransition('scheduled', 'resolve'), 'start');
if (assertTransition('resolved', 'start') !== CLAIMED)
  throw new Error('state table: resolved must start into executing');

export interface EngineDeps {
  db: Db;
  scheduler: ActionScheduler;
  callbacks: CallbackOutbox;
  outbound: OutboundClient;
  metrics: Metrics;
  logger: Logger;
  clock: Clock;
  /** SCHED_TIME_SCALE: divides every wait the service chooses. */
  timeScale: number;
  /** Sends approval gates' messages; absent only in tests of webhook delivery. */
  approvals?: ApprovalEngine;
}

interface Claimed {
  row: ActionRow;
  dueAt: Date;
}

const ATTEMPT_COLUMNS = `id, action_id, attempt_number, due_at, started_at, lateness_ms, duration_ms, status_code,
  outcome, error, response_excerpt, response_truncated`;

/** The parameters of one `delivery_attempts` row, in the order of ATTEMPT_COLUMNS. */
function attemptParams(a: {
  actionId: string;
  attemptNumber: number;
  dueAt: Date;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  outcome: DeliveryOutcome;
  error: string | null;
  excerpt: string | null;
  truncated: boolean;
}): unknown[] {
  return [
    randomUUID(),
    a.actionId,
    a.attemptNumber,
    a.dueAt,
    a.startedAt,
    Math.max(0, a.startedAt.getTime() - a.dueAt.getTime()),
    Math.max(0, Math.round(a.durationMs)),
    a.statusCode,
    a.outcome,
    a.error,
    a.excerpt,
    a.truncated,
  ];
}

/**
 * Runs delivery attempts of webhook actions. Each attempt is claimed in one transaction (the state moves to
 * `executing` under a lease), sent outside any transaction, and recorded in a second transaction that applies
 * the outcome through the state table and queues what follows (retry, next occurrence, callbacks). A worker that
 * dies mid-attempt leaves a lease that expires; the sweeper then retries the action elsewhere.
 */
export class DeliveryEngine {
  constructor(private readonly deps: EngineDeps) {}

  /** 30 s, divided by SCHED_TIME_SCALE in tests (never below 2 s). */
  private requestTimeoutMs(): number {
    return Math.max(MIN_TIMEOUT_MS, REQUEST_TIMEOUT_MS / this.deps.timeScale);
  }

  /** Always longer than the request timeout: a live attempt is never taken over. */
  private leaseMs(): number {
    return this.requestTimeoutMs() + Math.max(MIN_LEASE_MARGIN_MS, LEASE_MARGIN_MS / this.deps.timeScale);
  }

  /** Fires the action's due attempt, if it is still due and nobody else holds it. Idempotent. */
  async fire(actionId: string): Promise<void> {
    const claimed = await this.claim(actionId);
    if (!claimed) return;
    const { row, dueAt } = claimed;
    const started = this.deps.clock();
    this.deps.metrics.fireLateness.observe(
      { mode: row.mode },
      Math.max(0, started.getTime() - dueAt.getTime()) / 1000,
    );
    if (row.mode === 'approval') {
      if (!this.deps.approvals) throw new Error('approval actions need an approval engine');
      await this.deps.approvals.sendRound(row);
      return;
    }
    const result = await this.deps.outbound.send(buildRequest(row, started, this.requestTimeoutMs()));
    await this.record(row, dueAt, started, result);
  }

  /**
   * Claims the due attempt. The common case is one statement: the action is due, needs no coordination check and
   * has attempts left. Anything else (a coordination rule to evaluate, attempts used up by a lost attempt) takes the
   * transactional path; an action that is not due, or already taken, costs one cheap read.
   */
  private async claim(actionId: string): Promise<Claimed | null> {
    const now = this.deps.clock();
    // One round trip either way: the claimed row, or (when nothing was claimed) the row as it stands, to tell a
    // duplicate trigger (already taken, or not due) from a case for the transactional path.
    const [found] = await this.deps.db.query<ActionRow & { claimed: boolean }>(
      `with claimed as (
         update actions set status = $2, lease_until = $3, updated_at = now(),
           attempt_count = attempt_count + case when mode = 'webhook' then 1 else 0 end
         where id = $1 and status = any($4::text[]) and next_attempt_at <= $5
           and (mode <> 'webhook' or attempt_count < max_attempts)
           and (coordination -> 'on_execute' is null
                or (mode = 'webhook' and attempt_count > 0)
                or (mode = 'approval' and gate ->> 'sent_at' is not null))
         returning *
       )
       select claimed.*, true as claimed from claimed
       union all
       select actions.*, false from actions where id = $1 and not exists (select 1 from claimed)`,
      [
        actionId,
        CLAIMED,
        new Date(now.getTime() + this.leaseMs()),
        CLAIMABLE,
        new Date(now.getTime() + CLAIM_TOLERANCE_MS),
      ],
    );
    if (!found) return null;
    const { claimed, ...row } = found;
    if (claimed) return { row: row as ActionRow, dueAt: asDate(row.next_attempt_at!) };
    if (!(CLAIMABLE as string[]).includes(row.status) || !row.next_attempt_at) return null;
    if (asDate(row.next_attempt_at).getTime() > now.getTime() + CLAIM_TOLERANCE_MS) return null;
    return this.claimCarefully(actionId);
  }

  private claimCarefully(actionId: string): Promise<Claimed | null> {
    return this.deps.db.transaction(async (tx) => {
      // SKIP LOCKED: when another worker is claiming this action right now, it is theirs.
      const [row] = await tx.query<ActionRow>('select * from actions where id = $1 for update skip locked', [
        actionId,
      ]);
      if (!row || (row.status !== 'scheduled' && row.status !== 'resolved')) return null;
      const now = this.deps.clock();
      if (!row.next_attempt_at || asDate(row.next_attempt_at).getTime() > now.getTime() + CLAIM_TOLERANCE_MS)
        return null;
      const status: ActionState =
        row.status === 'scheduled' ? assertTransition(row.status, 'resolve') : row.status;

      const webhook = row.mode === 'webhook';
      const firstOfOccurrence = webhook ? row.attempt_count === 0 : !row.gate?.sent_at;
      if (row.coordination?.on_execute && firstOfOccurrence) {
        const proceed = await this.coordinate(tx, row, status, now);
        if (!proceed) return null;
      }
      if (webhook && row.attempt_count >= row.max_attempts) {
        // Only reachable after a lost attempt used the last one up: nothing is left to try.
        await this.finishFailed(
          tx,
          row,
          status,
          'deliver_failed_permanently',
          row.last_error ?? 'attempts exhausted',
          null,
        );
        return null;
      }
      const to = assertTransition(status, 'start');
      const [claimed] = await tx.query<ActionRow>(
        `update actions set status = $2, attempt_count = attempt_count + $4, lease_until = $3, updated_at = now()
         where id = $1 returning *`,
        // attempt_count counts HTTP delivery attempts; a gate's rounds of messages are not attempts.
        [row.id, to, new Date(now.getTime() + this.leaseMs()), webhook ? 1 : 0],
      );
      return { row: claimed!, dueAt: asDate(row.next_attempt_at) };
    });
  }

  /** Rules 3-5 of spec 4.1 when the time arrives. Returns true when the attempt may go ahead. */
  private async coordinate(tx: Sql, row: ActionRow, status: ActionState, now: Date): Promise<boolean> {
    const rule = row.coordination!.on_execute!;
    const others = await actionSql.sharingKeys(tx, row.account_id, row.dedup_keys, { excludeId: row.id });
    const verdict = decideOnExecute(
      rule.condition,
      others.map((o) => ({ id: o.id, status: o.status, createdAt: asDate(o.created_at) })),
      { id: row.id, createdAt: asDate(row.created_at) },
    );
    if (verdict === 'execute') return true;
    const decision = onConditionNotMet(
      rule.on_condition_not_met ?? defaultNotMetPolicy(rule.condition),
      row.reschedule_count,
      rule.max_reschedules,
    );
    const reason = `coordination condition ${rule.condition} not met`;
    if (decision.kind === 'reschedule') {
      const to = assertTransition(status, 'condition_reschedule');
      const next = new Date(now.getTime() + (rule.reschedule_delay * 1000) / this.deps.timeScale);
      await tx.query(
        `update actions set status = $2, next_attempt_at = $3, reschedule_count = reschedule_count + 1, last_error = $4, updated_at = now()
         where id = $1`,
        [row.id, to, next, `${reason}; rescheduled`],
      );
      await this.deps.scheduler.schedule(tx, row.id, next);
    } else if (decision.kind === 'cancel') {
      const to = assertTransition(status, 'condition_cancel');
      await tx.query(
        `update actions set status = $2, next_attempt_at = null, last_error = $3, updated_at = now() where id = $1`,
        [
          row.id,
          to,
          decision.reason === 'max_reschedules_reached'
            ? `${reason} after ${row.reschedule_count} reschedules`
            : reason,
        ],
      );
    } else {
      await this.finishFailed(tx, row, status, 'condition_fail', reason, null);
    }
    return false;
  }

  private async record(row: ActionRow, dueAt: Date, started: Date, result: OutboundResult): Promise<void> {
    const { db, metrics } = this.deps;
    const outcome: DeliveryOutcome = classifyAttempt(
      result.kind === 'response' ? { kind: 'response', status: result.status } : result,
    );
    const statusCode = result.kind === 'response' ? result.status : null;
    const error =
      result.kind === 'response' ? (outcome === 'success' ? null : `HTTP ${result.status}`) : result.message;
    metrics.deliveries.inc({ outcome });
    const attempt = attemptParams({
      actionId: row.id,
      attemptNumber: row.attempt_count,
      dueAt,
      startedAt: started,
      durationMs: result.durationMs,
      statusCode,
      outcome,
      error,
      excerpt: result.kind === 'response' ? result.bodyExcerpt : null,
      truncated: result.kind === 'response' ? result.bodyTruncated : false,
    });
    if (outcome === 'success' && !row.recurrence && !row.callback_url) {
      // The common success (one-time, no callback) in one statement: the action is done and the attempt logged
      // together, or neither when the lease was lost, which the transaction below then sorts out.
      const [done] = await db.query(
        `with done as (
           update actions set status = $13, next_attempt_at = null, lease_until = null, last_error = null,
             executed_at = $14, updated_at = now()
            where id = $2 and status = 'executing' and attempt_count = $3 and recurrence is null and callback_url is null
           returning id
         )
         insert into delivery_attempts (${ATTEMPT_COLUMNS})
         select $1::uuid, $2::uuid, $3::int, $4::timestamptz, $5::timestamptz, $6::int, $7::int, $8::int, $9::text,
                $10::text, $11::text, $12::boolean
           from done
         returning id`,
        [...attempt, assertTransition('executing', 'deliver_succeeded'), this.deps.clock()],
      );
      if (done) return;
    }
    await db.transaction(async (tx) => {
      await tx.query(
        `insert into delivery_attempts (${ATTEMPT_COLUMNS}) values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)`,
        attempt,
      );
      const [current] = await tx.query<ActionRow>('select * from actions where id = $1 for update', [row.id]);
      // The lease was lost (this worker stalled past it and another took over): the log keeps the attempt, nothing else.
      if (current?.status !== 'executing' || current.attempt_count !== row.attempt_count) return;
      const now = this.deps.clock();

      if (outcome === 'success') {
        await this.succeed(tx, current, now, {
          response_code: statusCode,
          duration_ms: Math.round(result.durationMs),
          attempt_number: row.attempt_count,
        });
        return;
      }
      if (shouldRetry(outcome, current.attempt_count, current.max_attempts)) {
        const retryAfter =
          result.kind === 'response' ? parseRetryAfter(result.headers['retry-after'], now) : null;
        const wait =
          retryDelayMs(current.retry_strategy, current.attempt_count, retryAfter) / this.deps.timeScale;
        const next = new Date(now.getTime() + wait);
        const to = assertTransition(current.status, 'deliver_failed_retryable');
        await tx.query(
          `update actions set status = $2, next_attempt_at = $3, lease_until = null, last_error = $4, updated_at = now() where id = $1`,
          [current.id, to, next, error],
        );
        await this.deps.scheduler.schedule(tx, current.id, next);
        metrics.retries.inc();
        return;
      }
      await this.finishFailed(
        tx,
        current,
        current.status,
        'deliver_failed_permanently',
        error ?? 'delivery failed',
        statusCode,
      );
    });
  }

  /** Success: done, or, for a recurring action, on to its next occurrence (spec: re-scheduled after each success). */
  private async succeed(
    tx: Sql,
    row: ActionRow,
    now: Date,
    payload: { response_code: number | null; duration_ms: number; attempt_number: number },
  ) {
    const completed = row.recurrence_count + 1;
    const next = row.recurrence ? this.nextOccurrenceAfter(row, completed, now) : null;
    if (next) {
      const to = assertTransition(row.status, 'recur');
      await tx.query(
        `update actions set status = $2, scheduled_for = $3, next_attempt_at = $4, attempt_count = 0, recurrence_count = $5,
           recurrence_index = $6, last_executed_at = $7, executed_at = $7, lease_until = null, last_error = null,
           reschedule_count = 0, updated_at = now()
         where id = $1`,
        [row.id, to, next.scheduledFor, next.dueAt, completed, next.index, now],
      );
      await this.deps.scheduler.schedule(tx, row.id, next.dueAt);
    } else {
      const to = assertTransition(row.status, 'deliver_succeeded');
      await tx.query(
        `update actions set status = $2, next_attempt_at = null, lease_until = null, last_error = null, executed_at = $3,
           recurrence_count = case when recurrence is null then recurrence_count else $4 end,
           last_executed_at = case when recurrence is null then last_executed_at else $3 end, updated_at = now()
         where id = $1`,
        [row.id, to, now, completed],
      );
    }
    await this.deps.callbacks.enqueue(tx, row, 'action.executed', { status: 'executed', ...payload });
  }

  /**
   * The occurrence after the one just executed, or null when the recurrence has ended. Occurrences missed while the
   * service was down are skipped: the latest one due fires once, now, and the schedule carries on from it.
   */
  private nextOccurrenceAfter(
    row: ActionRow,
    completed: number,
    now: Date,
  ): { index: number; scheduledFor: Date; dueAt: Date } | null {
    const r = row.recurrence!;
    const anchor = asDate(row.recurrence_anchor ?? row.scheduled_for);
    const interval = { frequency: r.frequency, unit: r.unit };
    const at = (index: number) =>
      nextOccurrence({ anchor, interval, timezone: row.timezone, occurrenceIndex: index });
    const end = {
      endType: r.end_type,
      maxOccurrences: r.max_occurrences ?? null,
      endDate: r.end_date ? parseTimestamp(r.end_date, row.timezone) : null,
    };
    if (this.deps.timeScale !== 1) {
      // Under SCHED_TIME_SCALE the gap shrinks; occurrences follow one another from the one just run.
      const index = row.recurrence_index + 1;
      const nominal = at(index);
      if (isRecurrenceFinished(end, completed, nominal)) return null;
      const gap = (nominal.getTime() - at(index - 1).getTime()) / this.deps.timeScale;
      const scheduledFor = new Date(asDate(row.scheduled_for).getTime() + gap);
      return { index, scheduledFor, dueAt: scheduledFor < now ? now : scheduledFor };
    }
    let index = row.recurrence_index + 1;
    while (at(index + 1).getTime() <= now.getTime()) index += 1;
    const scheduledFor = at(index);
    if (isRecurrenceFinished(end, completed, scheduledFor)) return null;
    return { index, scheduledFor, dueAt: scheduledFor < now ? now : scheduledFor };
  }

  private async finishFailed(
    tx: Sql,
    row: ActionRow,
    from: ActionState,
    event: ActionEvent,
    error: string,
    statusCode: number | null,
  ) {
    const to = assertTransition(from, event);
    await tx.query(
      `update actions set status = $2, next_attempt_at = null, lease_until = null, last_error = $3, updated_at = now() where id = $1`,
      [row.id, to, error],
    );
    await this.deps.callbacks.enqueue(tx, row, 'action.failed', {
      status: 'failed',
      response_code: statusCode,
      total_attempts: row.attempt_count,
      error_message: error,
    });
  }

  /**
   * Hands back actions whose worker stopped mid-attempt (lease expired): the lost attempt is logged and the action
   * is retried at once, or fails when that was its last attempt. Safe to run from every worker at once.
   */
  async sweepExpiredLeases(): Promise<number> {
    const expired = await this.deps.db.query<{ id: string }>(
      `select id from actions where status = 'executing' and lease_until < now() order by lease_until limit 100`,
    );
    let swept = 0;
    for (const { id } of expired) {
      swept += await this.deps.db.transaction(async (tx) => {
        const [row] = await tx.query<ActionRow>(
          `select * from actions where id = $1 and status = 'executing' and lease_until < now() for update skip locked`,
          [id],
        );
        if (!row) return 0;
        const now = this.deps.clock();
        const started = new Date(asDate(row.lease_until!).getTime() - this.leaseMs());
        const error = 'the worker stopped during this attempt (its lease expired); retrying';
        if (row.mode === 'webhook') {
          // Logged as a retryable attempt that started when the lease was taken and lasted until now.
          await tx.query(
            `insert into delivery_attempts (${ATTEMPT_COLUMNS}) values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)`,
            attemptParams({
              actionId: row.id,
              attemptNumber: row.attempt_count,
              dueAt: started,
              startedAt: started,
              durationMs: now.getTime() - started.getTime(),
              statusCode: null,
              outcome: 'retryable',
              error,
              excerpt: null,
              truncated: false,
            }),
          );
        }
        if (row.mode === 'webhook' && row.attempt_count >= row.max_attempts) {
          await this.finishFailed(
            tx,
            row,
            row.status,
            'deliver_failed_permanently',
            'the last attempt was lost when its worker stopped',
            null,
          );
          return 1;
        }
        const to = assertTransition(row.status, 'lease_expired');
        await tx.query(
          `update actions set status = $2, next_attempt_at = $3, lease_until = null, last_error = $4, updated_at = now() where id = $1`,
          [row.id, to, now, error],
        );
        await this.deps.scheduler.schedule(tx, row.id, now);
        return 1;
      });
    }
    return swept;
  }
}

/** The outgoing request of an attempt: the user's request, JSON body, delivery headers and signatures. */
export function buildRequest(row: ActionRow, now: Date, timeoutMs = REQUEST_TIMEOUT_MS) {
  const req = row.request!;
  const hasBody = req.body !== undefined && req.method !== 'GET';
  const body = hasBody ? JSON.stringify(req.body) : '';
  // One message id per occurrence: retries of it share the id, so receivers can deduplicate.
  const messageId = `${row.id}.${row.recurrence_count}`;
  // Names are case-insensitive: the user's headers are folded to lower case, so ours replace theirs instead of
  // being sent twice, and a user's own content-type wins over the default.
  const headers: Record<string, string> = hasBody ? { 'content-type': 'application/json' } : {};
  for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = value;
  headers['x-sched-action-id'] = row.id;
  headers['x-sched-attempt'] = String(row.attempt_count);
  if (row.webhook_secret) {
    const signed = signRequest({
      secret: row.webhook_secret,
      messageId,
      timestamp: Math.floor(now.getTime() / 1000),
      body,
    });
    for (const [name, value] of Object.entries(signed)) headers[name.toLowerCase()] = value;
  }
  return {
    url: req.url,
    method: req.method,
    headers,
    ...(hasBody ? { body } : {}),
    timeoutMs,
    maxResponseBytes: EXCERPT_BYTES,
  };
}
