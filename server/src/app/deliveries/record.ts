import { assertTransition } from '../../domain/action/states.js';
import { signalOf } from '../../domain/destinations/circuit.js';
import { hostOfOrigin } from '../../domain/destinations/origin.js';
import { classifyError } from '../../domain/delivery/error-class.js';
import { classifyAttempt } from '../../domain/delivery/outcome.js';
import { type ActionRow, lockAction, updateAction } from '../../persistence/actions.js';
import { databaseFault } from '../../persistence/availability.js';
import type { Sql } from '../../persistence/database.js';
import {
  type AttemptRecord,
  actionsToRecord,
  completeOneShots,
  latestAttempt,
  logAttempt,
  recordOutcomes,
} from '../../persistence/deliveries.js';
import { expiredLeases, lockExpiredLease } from '../../persistence/delivery-scan.js';
import { applyActionEvent, appliedEventEffects, planActionEvent } from '../actions/transition.js';
import type { OutboundResult } from '../ports.js';
import { systemTimers } from '../clock.js';
import { TickBatch } from '../tick-batch.js';
import type { AttemptContext, DeliveryPorts } from './attempt.js';
import { CLAIMED } from './claim.js';
import { outcomeOf, owned, type Recorded } from './outcome.js';
import { EXCERPT_BYTES } from './request.js';

const SUCCEEDED = assertTransition(CLAIMED, 'deliver_succeeded');
/**
 * A batch of records flushes at this many rows, or this long after its first, whichever comes first. At 1,000
 * deliveries a second, 20 ms gathers about twenty records a statement (docs/performance.md, "Records gathered for
 * 20 ms"). A record is written after the request is done and holds no slot, so no delivery is later for it.
 */
const RECORD_BATCH = 64;
const RECORD_WAIT_MS = 20;
/** How long a record waits for the database to answer again before it tries once more. */
const RETRY_MS = 100;

/** The action already carries this attempt as its latest: its record committed. */
function recordedAlready(current: ActionRow, attempt: AttemptRecord): boolean {
  return current.last_attempt_at?.getTime() === attempt.startedAt.getTime();
}

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
  | 'timers'
>;

/**
 * The record stage: an attempt's answer classified (domain/delivery/outcome.ts), logged, heard by its host's circuit,
 * and applied to the action through the state table (`planActionEvent`, `appliedEventEffects`): done, on to its next
 * occurrence, retried later, or failed. Each outcome writes its attempt and its action's change in one statement
 * (persistence/deliveries.ts); successes share theirs with the others of the next 20 ms, a failure goes with its
 * host's circuit in a transaction of its own. Also hands back the attempts of workers that stopped mid-attempt
 * (`sweep`).
 */
export class AttemptRecorder {
  /**
   * The one-time successes of a moment, in one statement: sent when RECORD_BATCH have gathered or
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

  /**
   * The successes that are more than plain (a recurring action's next occurrence, a success with a callback),
   * gathered as the plain ones are: their rows read in one statement, their changes written in one
   * (persistence/deliveries.ts `recordOutcomes`), what the state table says each implies in the same transaction.
   */
  private readonly successes = new TickBatch<Recorded, boolean>(
    (items) =>
      this.p.store.transaction(async (db) => {
        const rows = await actionsToRecord(
          db,
          items.map((i) => i.a.row.id),
        );
        const done = await this.write(
          db,
          items.flatMap((item) => {
            const current = rows.get(item.a.row.id);
            return current && owned(current, item.a) ? [{ item, current }] : [];
          }),
        );
        return items.map((i) => done.has(i.a.row.id));
      }),
    RECORD_BATCH,
    4,
    RECORD_WAIT_MS,
  );

  constructor(private readonly p: RecordPorts) {}

  /**
   * Records an attempt's answer. When the database drops out under the record (a connection killed, a restart), the
   * record is tried again until `until` (the lease's end, less a margin): an attempt sent and not recorded is sent
   * again by whoever takes the lease over, so a record that waits a moment for the database saves a second delivery.
   */
  async record(a: AttemptContext, result: OutboundResult, until?: number): Promise<void> {
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
    const item: Recorded = { a, result, attempt };
    for (;;) {
      try {
        return await this.recordOnce(item);
      } catch (err) {
        const fault = databaseFault(err);
        if (!until || !fault || fault === 'statement_timeout' || this.p.clock().getTime() + RETRY_MS >= until)
          throw err;
        await new Promise<void>((resolve) => (this.p.timers ?? systemTimers).after(RETRY_MS, resolve));
      }
    }
  }

  private async recordOnce(item: Recorded): Promise<void> {
    const { a, result, attempt } = item;
    const { row } = a;
    const { outcome } = attempt;
    // A success that settles nothing else (no probe's circuit, no listener, no late alert) is gathered with others.
    if (outcome === 'success' && !a.listened && !a.probe && !a.late) {
      const plain = !row.recurrence && !row.callback_url;
      if (plain ? await this.oneShots.add(attempt) : await this.successes.add(item)) return;
    }
    await this.p.store.transaction(async (db) => {
      // A listener (a chain step) writes with the success: its row is locked first, so those writes cannot outlive a
      // lease lost meanwhile. Any other outcome's statement checks the lease itself.
      const current = a.listened
        ? await lockAction(db, row.id)
        : ((await actionsToRecord(db, [row.id])).get(row.id) ?? null);
      // Deleted meanwhile (its account's row deleted by hand: the attempt log keeps no attempt of a missing action).
      if (!current) return;
      let written = false;
      if (owned(current, a)) {
        if (outcome === 'success' && a.listened && result.kind === 'response')
          await this.p.settled!.succeeded(db, current, { status: result.status, body: result.bodyExcerpt });
        written = (await this.write(db, [{ item, current }])).size > 0;
      }
      // Recorded already: a record tried again after its commit's answer was lost with its connection.
      if (!written && recordedAlready(current, attempt)) return;
      if (!written) {
        // The lease was lost (this worker stalled past it and another took over): the log keeps the attempt, and
        // the action its latest one, nothing else.
        await logAttempt(db, attempt);
        await updateAction(db, row.id, { ...latestAttempt(attempt), updated_at: current.updated_at });
      }
      // The origin's circuit hears of failures and probes once the attempt is in the log it judges by (its row locked
      // after the action's, as the claim does).
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
    });
  }

  /**
   * Writes the outcomes of attempts whose actions are still theirs, in one statement, each change worked out from
   * the state table (`planActionEvent`), then what each implies (`appliedEventEffects`). Answers the actions written.
   */
  private async write(
    db: Sql,
    rows: readonly { item: Recorded; current: ActionRow }[],
  ): Promise<Set<string>> {
    const now = this.p.clock();
    const planned = [];
    for (const { item, current } of rows) {
      const { event, change } = await outcomeOf(db, current, item, now, this.p);
      planned.push({ item, current, event, change, plan: planActionEvent(current, event, change) });
    }
    if (planned.length === 0) return new Set();
    const done = await recordOutcomes(
      db,
      planned.map(({ item, change, plan }) => ({
        attempt: item.attempt,
        changes: { ...plan.fields, lease_until: null, updated_at: change.now },
      })),
    );
    for (const { current, event, change, plan } of planned) {
      if (!done.has(current.id)) continue;
      await appliedEventEffects(db, current, event, { ...change, to: plan.to, next: plan.next }, this.p);
      if (event === 'deliver_failed_retryable') this.p.events?.retried();
    }
    return done;
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
