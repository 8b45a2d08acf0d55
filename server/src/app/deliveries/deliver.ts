import { ALERT_LIMITS, type HoldReason } from '@sched/contract';
import { type ActionEvent, type ActionState, assertTransition } from '../../domain/action/states.js';
import { decideOnExecute, defaultNotMetPolicy, onConditionNotMet } from '../../domain/coordination/dedup.js';
import { classifyError } from '../../domain/delivery/error-class.js';
import { classifyAttempt, type DeliveryOutcome } from '../../domain/delivery/outcome.js';
import {
  parseRetryAfter,
  type RandomSource,
  retryDelayMs,
  shouldRetry,
} from '../../domain/delivery/retry-policy.js';
import { type ActionRow, actionsSharingKeys, lockAction, updateAction } from '../../persistence/actions.js';
import type { Sql } from '../../persistence/database.js';
import {
  type AttemptRecord,
  type AttemptRow,
  type ClaimFound,
  claimDue,
  claimDueShare,
  completeOneShots,
  expiredLeases,
  insertAttempt,
  lockExpiredLease,
} from '../../persistence/deliveries.js';
import { signalOf } from '../../domain/destinations/circuit.js';
import type { CircuitBreaker } from '../destinations/breaker.js';
import { thresholdReopensAt } from '../../domain/domains/rules.js';
import { type CountDestination, DestinationThresholdError } from '../domains/guard.js';
import { seriesOf } from '../actions/series.js';
import type {
  ActionScheduler,
  ActionSettledHook,
  CallbackOutbox,
  Clock,
  GateRounds,
  LateDeliveryThresholds,
  OperatorEvents,
  Outbound,
  OutboundResult,
  RequestSigning,
  Store,
  Timers,
  Tracing,
} from '../ports.js';
import { systemTimers } from '../clock.js';
import { TickBatch } from '../tick-batch.js';
import type { Waits } from '../waits.js';
import { buildRequest, EXCERPT_BYTES } from './request.js';

/** Spec 7: outgoing requests time out after 30 s. */
const REQUEST_TIMEOUT_MS = 30_000;
/** A claimed attempt is owned for its request timeout plus this margin; past it, the lease sweep hands it on. */
const LEASE_MARGIN_MS = 15_000;
/** Floors under SCHED_TIME_SCALE, so scaled tests still give a loopback request time to answer. */
const MIN_TIMEOUT_MS = 2_000;
const MIN_LEASE_MARGIN_MS = 3_000;
/** A trigger by id may fire a hair before the attempt's due time as the database stores it. */
const CLAIM_TOLERANCE_MS = 25;
/** The furthest ahead of its due time an attempt may be claimed (the firing loop's lead and window, at most). */
export const MAX_CLAIM_AHEAD_MS = 500;
/** States an attempt is claimed from, and the state it is claimed into, as the state table says. */
const CLAIMABLE: readonly ActionState[] = ['scheduled', 'resolved'];
const CLAIMED: ActionState = assertTransition(assertTransition('scheduled', 'resolve'), 'start');
if (assertTransition('resolved', 'start') !== CLAIMED)
  throw new Error('state table: resolved must start into executing');
const SUCCEEDED: ActionState = assertTransition(CLAIMED, 'deliver_succeeded');

/** What the use case reports as it goes (Prometheus in production; nothing in most tests). */
interface DeliveryEvents {
  fired(mode: string, latenessSeconds: number): void;
  attempted(outcome: DeliveryOutcome): void;
  retried(): void;
}

export interface DeliveryPorts {
  store: Store;
  /** The source of the retry waits' jitter (domain/delivery/retry-policy.ts); Math.random when absent. */
  random?: RandomSource;
  /**
   * Where attempts are claimed: connections that commit without waiting for the disk flush (compose/database.ts says
   * why that is safe); `store` when absent.
   */
  claims?: Store;
  scheduler: ActionScheduler;
  callbacks: CallbackOutbox;
  outbound: Outbound;
  clock: Clock;
  /** Timers on `clock` (the wait until a claimed attempt's due time); the system's when absent. */
  timers?: Timers;
  waits: Waits;
  events?: DeliveryEvents;
  /** Sends approval gates' messages; absent only where no approval action is fired. */
  approvals?: GateRounds;
  /** Hears of successes with their response (a chain step's action: app/chains/settled.ts). */
  settled?: ActionSettledHook;
  /** Spans of the attempts and approval rounds (OpenTelemetry when configured). */
  tracing?: Tracing | undefined;
  /** What signs each request beside its own secret (a rotation's overlap); the row's own secret alone when absent. */
  signing?: RequestSigning | undefined;
  /** Each host's flow control and circuit breaker (app/destinations/breaker.ts). */
  breaker: CircuitBreaker;
  /** The destination threshold (app/domains/guard.ts), for sends counted when they are made; unset counts nothing. */
  countDestination?: CountDestination | undefined;
  /** Where alertable facts are recorded (`action.failed`, `delivery.late`), in the transaction that causes them. */
  operatorEvents?: OperatorEvents;
  /** How late a delivery must be to be recorded as `delivery.late` for its account (null: no rule watches). */
  lateness?: LateDeliveryThresholds;
}

/** A webhook attempt that started later than its account's smallest `late_after`: recorded as `delivery.late`. */
interface Late {
  latenessMs: number;
}

/** A due attempt this worker now owns, under its lease. */
export interface Claimed {
  /** What the attempt needs of its action (a claim by id answers the whole row). */
  row: AttemptRow;
  /** The whole row, for an approval's round (claimed by id, on the careful path). */
  action?: ActionRow;
  dueAt: Date;
  /** Since when and by what its destination held the due attempt, or null. */
  held: { since: Date; by: HoldReason } | null;
  /** The half-open circuit's probe: its answer, success included, is recorded carefully (it settles the circuit). */
  probe: boolean;
}

/** A due attempt held by its host's flow control: it stays due, unclaimed, and is looked at again at `retryAt`. */
interface Held {
  retryAt: Date;
}

/** What a worker's claim of its share took (see `Deliveries.claimShare`). */
export interface ShareClaim {
  claimed: Claimed[];
  /** Due attempts the careful path must look at (`fire`): a host with flow control, a coordination rule. */
  careful: { id: string; accountId: string }[];
  /** The earliest due time of the share beyond what this claim could take, or null. */
  nextDue: Date | null;
  /** Due attempts left for want of room (or locked by another worker's claim). */
  leftDue: number;
  /** Whether the claim read as many due rows as it may (others may be due behind them). */
  more: boolean;
}

/** The part of the due set a worker claims from: its slot among the live workers (persistence/workers.ts). */
export interface Share {
  slots: number;
  slot: number;
}

/** Attempts overdue by this much are claimed by any worker (the floor under SCHED_TIME_SCALE: see `overdueBefore`). */
const OVERDUE_GRACE_MS = 5_000;
const MIN_OVERDUE_GRACE_MS = 2_000;

/**
 * Delivery of an action's due attempt: claim, send, record, then retry, recur or finish. The attempt is claimed in
 * one statement or transaction (the state moves to `executing` under a lease), sent outside any transaction, and
 * recorded in a second one that applies the outcome through the state table and schedules what follows (a retry,
 * the next occurrence, callbacks). A worker that dies mid-attempt leaves a lease that expires; `sweepExpiredLeases`
 * then hands the action on. Every entry point is idempotent: jobs/ may call `fire` from several triggers at once.
 */
export class Deliveries {
  /** The claims of one turn of the event loop, in one statement. */
  private readonly claims = new TickBatch<string, ClaimFound | undefined>(async (ids) => {
    const now = this.p.clock();
    const found = await claimDue((this.p.claims ?? this.p.store).sql, {
      actionIds: ids,
      from: CLAIMABLE,
      to: CLAIMED,
      leaseUntil: new Date(now.getTime() + this.leaseMs()),
      dueBy: new Date(now.getTime() + CLAIM_TOLERANCE_MS),
      now,
    });
    // One claim, one owner: should two triggers of one action share a batch, only the first gets the row.
    const answered = new Set<string>();
    return ids.map((id) => {
      if (answered.has(id)) return undefined;
      answered.add(id);
      return found.get(id);
    });
  });

  /**
   * The one-time successes of one turn of the event loop, in one statement, sent at the end of that turn unless four
   * are under way already: then they wait for one of those and go together. A round trip costs both processes more
   * than the rows it carries on this loopback (docs/performance.md), so under load fewer and larger statements win;
   * when few attempts end at a time, each record leaves at once (an attempt sent and not yet recorded is one a worker's
   * crash would send again).
   */
  private readonly oneShots = new TickBatch<AttemptRecord, boolean>(
    async (attempts) => {
      const done = await completeOneShots(this.p.store.sql, attempts, { to: SUCCEEDED, now: this.p.clock() });
      return attempts.map((a) => done.has(a.actionId));
    },
    500,
    4,
  );

  constructor(private readonly p: DeliveryPorts) {}

  /** 30 s, scaled in tests (never below 2 s). */
  requestTimeoutMs(): number {
    return this.p.waits.wait(REQUEST_TIMEOUT_MS, MIN_TIMEOUT_MS);
  }

  /** Always longer than the request timeout: a live attempt is never taken over. */
  leaseMs(): number {
    return this.requestTimeoutMs() + this.p.waits.wait(LEASE_MARGIN_MS, MIN_LEASE_MARGIN_MS);
  }

  /** Attempts due before this are any worker's to claim: their owner may have died before the others noticed. */
  overdueBefore(now: Date): Date {
    return new Date(now.getTime() - this.p.waits.wait(OVERDUE_GRACE_MS, MIN_OVERDUE_GRACE_MS));
  }

  /**
   * Fires the action's due attempt, if it is still due and nobody else holds it. Answers when to fire it again when
   * its host's flow control holds it (no attempt spent; the row stays due, so any worker's overdue sweep would
   * too), else null.
   */
  async fire(actionId: string): Promise<Date | null> {
    const claimed = await this.claim(actionId);
    if (!claimed) return null;
    if ('retryAt' in claimed) return claimed.retryAt;
    await this.deliver(claimed);
    return null;
  }

  /**
   * Claims, in one statement, up to `limit` of the due attempts of a worker's share that are due within the claim
   * tolerance, each account given at most its room (`rooms`: the accounts with attempts in flight here and the room
   * each has left; any other account may take `perAccount`). The claimed attempts are this worker's to `deliver`.
   */
  async claimShare(c: {
    limit: number;
    /** Claims what falls due within this much (the attempt is sent at its due time). */
    aheadMs: number;
    share: Share;
    rooms: ReadonlyMap<string, number>;
    perAccount: number;
  }): Promise<ShareClaim> {
    const now = this.p.clock();
    // The due index is read in order, a little past the limit (each row read costs a tenth of a claimed one, measured):
    // enough to serve the accounts at the head of the queue round-robin. Accounts further back are reached when those
    // at the head are full (Firing's look past them).
    const scan = c.limit + 32;
    const found = await claimDueShare((this.p.claims ?? this.p.store).sql, {
      until: new Date(now.getTime() + Math.min(c.aheadMs, MAX_CLAIM_AHEAD_MS)),
      to: CLAIMED,
      now,
      leaseUntil: new Date(now.getTime() + this.leaseMs()),
      limit: c.limit,
      scan,
      share: { ...c.share, overdueBefore: this.overdueBefore(now) },
      rooms: c.rooms,
      perAccount: c.perAccount,
    });
    return {
      claimed: found.claimed.map((row) => ({ row, dueAt: row.next_attempt_at!, held: null, probe: false })),
      careful: found.careful,
      nextDue: found.nextDue,
      leftDue: found.leftDue,
      more: found.scanned >= scan,
    };
  }

  /**
   * The attempt of a claim: sent at its due time (never before: it may have been claimed a little ahead), then
   * recorded (`record`). An approval action's attempt is its round of messages instead. `sent` hears when the request
   * is done, before the record.
   */
  async deliver(claimed: Claimed, sent?: () => void): Promise<void> {
    const { row, dueAt } = claimed;
    await this.untilDue(dueAt);
    const started = this.p.clock();
    // Held time counts from the due time (or the hold's start, if later): lateness includes it, shown apart.
    const held = claimed.held
      ? {
          ms: Math.max(0, started.getTime() - Math.max(claimed.held.since.getTime(), dueAt.getTime())),
          by: claimed.held.by,
        }
      : null;
    const latenessMs = Math.max(0, started.getTime() - dueAt.getTime());
    this.p.events?.fired(row.mode, latenessMs / 1000);
    if (row.mode === 'approval') {
      const approvals = this.p.approvals;
      const action = claimed.action;
      if (!approvals) throw new Error('approval actions need the approval rounds (app/approvals/rounds.ts)');
      if (!action) throw new Error('an approval is claimed by id, with its whole row');
      const send = () => approvals.sendRound(action);
      await (this.p.tracing?.span('sched.approval.send', { 'sched.action_id': row.id }, send) ?? send());
      sent?.();
      return;
    }
    const listened = this.p.settled?.listensTo(row) ?? null;
    const secrets = await this.p.signing
      ?.secretsFor(row.account_id, row.webhook_secret)
      .catch(() => undefined);
    const request = buildRequest(row, started, this.requestTimeoutMs(), listened?.responseBytes, secrets);
    const span = this.p.tracing?.deliveryAttempt({
      actionId: row.id,
      attempt: row.attempt_count,
      latenessMs,
      createdBy: row.traceparent,
    });
    if (span) Object.assign(request.headers, span.headers);
    // Read alongside the request, which is late enough already.
    const late = this.late(row, latenessMs);
    const result = await this.p.outbound.send(request);
    sent?.();
    span?.end(
      result.kind === 'response' ? { status: result.status } : { status: null, error: result.message },
    );
    await this.record(row, dueAt, started, result, listened !== null, held, claimed.probe, await late);
  }

  /**
   * Whether the attempt is late enough to record for an alert rule. An attempt less late than the smallest
   * `late_after` a rule may set asks nothing (the hot path pays a comparison); a later one asks the account's
   * threshold, which is cached per process (app/alerts/watch.ts).
   */
  private async late(row: AttemptRow, latenessMs: number): Promise<Late | null> {
    if (!this.p.lateness || !this.p.operatorEvents || latenessMs < ALERT_LIMITS.late_after_min_ms)
      return null;
    // An alert is worth less than the delivery: a failed read skips it.
    const lateAfter = await this.p.lateness.lateAfterMs(row.account_id).catch(() => null);
    return lateAfter !== null && latenessMs >= lateAfter ? { latenessMs } : null;
  }

  /** Claimed ahead of time (app/deliveries/firing.ts): the attempt itself starts at its due time, never before. */
  private async untilDue(dueAt: Date): Promise<void> {
    // A few turns at most (a timer may wake a fraction of a millisecond early): a clock that does not move, as in
    // tests, cannot hold an attempt.
    for (let turn = 0; turn < 3; turn += 1) {
      const ahead = dueAt.getTime() - this.p.clock().getTime();
      if (ahead <= 0) return;
      await new Promise<void>((resolve) =>
        (this.p.timers ?? systemTimers).after(Math.min(Math.ceil(ahead), MAX_CLAIM_AHEAD_MS), resolve),
      );
    }
  }

  /**
   * The common case is one statement (shared with the other claims of this turn): the action is due, needs no
   * coordination check and has attempts left. Anything else (a coordination rule to evaluate, attempts used up by a
   * lost attempt) takes the careful path; an action that is not due, or already taken, costs its share of that one
   * statement.
   */
  private async claim(actionId: string): Promise<Claimed | Held | null> {
    const found = await this.claims.add(actionId);
    if (!found) return null;
    if (found.claimed)
      return {
        row: found.row,
        action: found.row,
        dueAt: found.row.next_attempt_at!,
        held: found.held,
        probe: false,
      };
    return this.claimCarefully(actionId);
  }

  private claimCarefully(actionId: string): Promise<Claimed | Held | null> {
    return this.p.store.transaction(async (db) => {
      // SKIP LOCKED: when another worker is claiming this action right now, it is theirs.
      const row = await lockAction(db, actionId, { skipLocked: true });
      if (!row || !CLAIMABLE.includes(row.status)) return null;
      const now = this.p.clock();
      if (!row.next_attempt_at || row.next_attempt_at.getTime() > now.getTime() + CLAIM_TOLERANCE_MS)
        return null;
      const status = row.status === 'scheduled' ? assertTransition(row.status, 'resolve') : row.status;

      const webhook = row.mode === 'webhook';
      const firstOfOccurrence = webhook ? row.attempt_count === 0 : !row.gate?.sent_at;
      if (row.coordination?.on_execute && firstOfOccurrence) {
        if (!(await this.coordinate(db, row, status, now))) return null;
      }
      if (webhook && row.attempt_count >= row.max_attempts) {
        // Only reachable after a lost attempt used the last one up: nothing is left to try.
        const error = row.last_error ?? 'attempts exhausted';
        await this.finishFailed(db, row, status, 'deliver_failed_permanently', error, null, now);
        return null;
      }
      // Counted before the host's admission, so a send blocked by its threshold never takes a flow slot or a probe.
      let counted = row.counted_occurrence;
      if (webhook && counted !== null && counted !== row.recurrence_index) {
        const send = await this.countSend(db, row, status, now);
        if (send === 'blocked') return null;
        counted = send === 'counted' ? row.recurrence_index : null;
      }
      const countedNow = counted !== row.counted_occurrence;
      const leaseUntil = new Date(now.getTime() + this.leaseMs());
      let probe = false;
      if (webhook && row.destination_host) {
        const slot = await this.p.breaker.admit(db, {
          accountId: row.account_id,
          host: row.destination_host,
          actionId: row.id,
          now,
          leaseUntil,
        });
        if (!slot.admit) {
          // The first hold is remembered (one write), so the attempt can tell how long it waited and why; a send
          // counted just now is remembered too, so its later claim does not count it again.
          if (!row.held_since || countedNow)
            await updateAction(db, row.id, {
              ...(!row.held_since && { held_since: now, held_by: slot.by }),
              ...(countedNow && { counted_occurrence: counted }),
              updated_at: row.updated_at,
            });
          // Held by a circuit: durable and due; the wake of its half-open or closing fires it again.
          return slot.retryAt ? { retryAt: slot.retryAt } : null;
        }
        probe = slot.probe;
      }
      const claimed = await updateAction(db, row.id, {
        status: assertTransition(status, 'start'),
        counted_occurrence: counted,
        // attempt_count counts HTTP delivery attempts; a gate's rounds of messages are not attempts.
        attempt_count: row.attempt_count + (webhook ? 1 : 0),
        lease_until: leaseUntil,
        held_since: null,
        held_by: null,
        updated_at: now,
      });
      const held = row.held_since && row.held_by ? { since: row.held_since, by: row.held_by } : null;
      return { row: claimed, action: claimed, dueAt: row.next_attempt_at, held, probe };
    });
  }

  /**
   * Counts a send the create did not count (a later occurrence of a series, a later round's post-approval request)
   * against its destination's threshold as it is claimed (spec 4.6), in the counters of whoever made the
   * action. `uncounted`: the destination is verified now (or private), and later sends are not counted. Past the
   * threshold the send is not made (`blocked`).
   */
  private async countSend(
    db: Sql,
    row: ActionRow,
    status: ActionState,
    now: Date,
  ): Promise<'counted' | 'uncounted' | 'blocked'> {
    const count = this.p.countDestination;
    if (!count || !row.request) return 'uncounted';
    try {
      const counted = await count(db, row.account_id, row.request!.url, now, { source: row.created_via });
      return counted ? 'counted' : 'uncounted';
    } catch (error) {
      if (!(error instanceof DestinationThresholdError)) throw error;
      await this.block(db, row, status, error.reason, now);
      return 'blocked';
    }
  }

  /**
   * A send past its destination's threshold is not made: the attempt log records it as `blocked` with the reason.
   * A series skips to its first occurrence from the next UTC day, when the threshold opens again, and goes on; an
   * action with nothing left to run fails, as one whose destination the SSRF guard refuses does.
   */
  private async block(db: Sql, row: ActionRow, status: ActionState, reason: string, now: Date) {
    const reopens = thresholdReopensAt(now);
    const next = row.recurrence
      ? seriesOf(row, this.p.waits).runAfter(new Date(reopens.getTime() - 1), row.recurrence_count)
      : null;
    const error = next
      ? `not sent: ${reason}; the series goes on at ${next.at.toISOString()}`
      : `not sent: ${reason}`;
    const attempted = { ...row, attempt_count: row.attempt_count + 1 };
    await insertAttempt(db, {
      actionId: row.id,
      attemptNumber: attempted.attempt_count,
      dueAt: row.next_attempt_at ?? now,
      startedAt: now,
      durationMs: 0,
      statusCode: null,
      outcome: 'permanent',
      errorClass: 'blocked',
      error,
      excerpt: null,
      truncated: false,
    });
    this.p.events?.attempted('permanent');
    if (!next) {
      await this.finishFailed(db, attempted, status, 'threshold_blocked', error, null, now, {
        attempt_count: attempted.attempt_count,
      });
      return;
    }
    await updateAction(db, row.id, {
      status: assertTransition(status, 'threshold_skip'),
      scheduled_for: next.at,
      next_attempt_at: next.at,
      recurrence_index: next.index,
      attempt_count: 0,
      reschedule_count: 0,
      last_error: error,
      updated_at: now,
    });
    await this.p.scheduler.schedule(db, row.id, next.at);
  }

  /** Rules 3-5 of spec 4.1 when the time arrives. Answers true when the attempt may go ahead. */
  private async coordinate(db: Sql, row: ActionRow, status: ActionState, now: Date): Promise<boolean> {
    const rule = row.coordination!.on_execute!;
    const others = await actionsSharingKeys(db, row.account_id, row.dedup_keys, { excludeId: row.id });
    const verdict = decideOnExecute(
      rule.condition,
      others.map((o) => ({ id: o.id, status: o.status, createdAt: o.created_at })),
      { id: row.id, createdAt: row.created_at },
    );
    if (verdict === 'execute') return true;
    const decision = onConditionNotMet(
      rule.on_condition_not_met ?? defaultNotMetPolicy(rule.condition),
      row.reschedule_count,
      rule.max_reschedules,
    );
    const reason = `coordination condition ${rule.condition} not met`;
    if (decision.kind === 'reschedule') {
      const next = new Date(now.getTime() + this.p.waits.wait(rule.reschedule_delay * 1000));
      await updateAction(db, row.id, {
        status: assertTransition(status, 'condition_reschedule'),
        next_attempt_at: next,
        reschedule_count: row.reschedule_count + 1,
        last_error: `${reason}; rescheduled`,
        updated_at: now,
      });
      await this.p.scheduler.schedule(db, row.id, next);
    } else if (decision.kind === 'cancel') {
      await updateAction(db, row.id, {
        status: assertTransition(status, 'condition_cancel'),
        next_attempt_at: null,
        last_error:
          decision.reason === 'max_reschedules_reached'
            ? `${reason} after ${row.reschedule_count} reschedules`
            : reason,
        updated_at: now,
      });
    } else {
      await this.finishFailed(db, row, status, 'condition_fail', reason, null, now);
    }
    return false;
  }

  private async record(
    row: AttemptRow,
    dueAt: Date,
    started: Date,
    result: OutboundResult,
    listened: boolean,
    held: AttemptRecord['held'] = null,
    probe = false,
    late: Late | null = null,
  ): Promise<void> {
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
      dueAt,
      startedAt: started,
      durationMs: result.durationMs,
      statusCode,
      outcome,
      errorClass: classifyError(result),
      held,
      error,
      // A settlement listener may read a longer body (request.ts); the attempt log keeps its usual excerpt.
      excerpt: result.kind === 'response' ? result.bodyExcerpt.slice(0, EXCERPT_BYTES) : null,
      truncated:
        result.kind === 'response'
          ? result.bodyTruncated || result.bodyExcerpt.length > EXCERPT_BYTES
          : false,
    };
    if (outcome === 'success' && !row.recurrence && !row.callback_url && !listened && !probe && !late) {
      if (await this.oneShots.add(attempt)) return;
    }
    await this.p.store.transaction(async (db) => {
      await insertAttempt(db, attempt);
      // The host's circuit hears of failures and probes (locked after the action's row, as the claim does).
      if (row.destination_host)
        await this.p.breaker.observe(db, {
          accountId: row.account_id,
          host: row.destination_host,
          startedAt: started,
          now: this.p.clock(),
          signal: signalOf(outcome, attempt.errorClass),
          probe,
        });
      if (late)
        await this.p.operatorEvents?.record(db, {
          account_id: row.account_id,
          type: 'delivery.late',
          at: started,
          destination_host: row.destination_host,
          subject: { type: 'action', id: row.id },
          details: {
            name: row.name,
            mode: row.mode,
            dedup_keys: row.dedup_keys,
            attempt: row.attempt_count,
            due_at: dueAt.toISOString(),
            lateness_ms: late.latenessMs,
            held_ms: held?.ms ?? null,
            held_by: held?.by ?? null,
          },
        });
      const current = await lockAction(db, row.id);
      // The lease was lost (this worker stalled past it and another took over): the log keeps the attempt, nothing else.
      if (current?.status !== 'executing' || current.attempt_count !== row.attempt_count) return;
      const now = this.p.clock();
      if (outcome === 'success') {
        // The listener (a chain step) keeps the response, committed with the action's success.
        if (listened && result.kind === 'response')
          await this.p.settled!.succeeded(db, current, { status: result.status, body: result.bodyExcerpt });
        await this.succeed(db, current, now, {
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
        const next = new Date(now.getTime() + this.p.waits.wait(wait));
        await updateAction(db, current.id, {
          status: assertTransition(current.status, 'deliver_failed_retryable'),
          next_attempt_at: next,
          lease_until: null,
          last_error: error,
          updated_at: now,
        });
        await this.p.scheduler.schedule(db, current.id, next);
        this.p.events?.retried();
      } else {
        const reason = error ?? 'delivery failed';
        await this.finishFailed(
          db,
          current,
          current.status,
          'deliver_failed_permanently',
          reason,
          statusCode,
          now,
        );
      }
    });
  }

  /** Success: done, or, for a recurring action, on to its next occurrence (spec: re-scheduled after each success). */
  private async succeed(
    db: Sql,
    row: ActionRow,
    now: Date,
    payload: { response_code: number | null; duration_ms: number; attempt_number: number },
  ) {
    const completed = row.recurrence_count + 1;
    const next = row.recurrence ? this.nextOccurrenceAfter(row, completed, now) : null;
    if (next) {
      await updateAction(db, row.id, {
        status: assertTransition(row.status, 'recur'),
        scheduled_for: next.scheduledFor,
        next_attempt_at: next.dueAt,
        attempt_count: 0,
        recurrence_count: completed,
        recurrence_index: next.index,
        last_executed_at: now,
        executed_at: now,
        lease_until: null,
        last_error: null,
        reschedule_count: 0,
        updated_at: now,
      });
      await this.p.scheduler.schedule(db, row.id, next.dueAt);
    } else {
      await updateAction(db, row.id, {
        status: assertTransition(row.status, 'deliver_succeeded'),
        next_attempt_at: null,
        lease_until: null,
        last_error: null,
        executed_at: now,
        ...(row.recurrence ? { recurrence_count: completed, last_executed_at: now } : {}),
        updated_at: now,
      });
    }
    await this.p.callbacks.enqueue(db, row, 'action.executed', { status: 'executed', ...payload });
  }

  /** The occurrence after the one just executed, or null when the recurrence has ended (app/actions/series.ts). */
  private nextOccurrenceAfter(
    row: ActionRow,
    completed: number,
    now: Date,
  ): { index: number; scheduledFor: Date; dueAt: Date } | null {
    const run = seriesOf(row, this.p.waits).nextAfterCurrent(completed, now);
    if (!run) return null;
    return { index: run.index, scheduledFor: run.at, dueAt: run.at < now ? now : run.at };
  }

  private async finishFailed(
    db: Sql,
    row: ActionRow,
    from: ActionState,
    event: ActionEvent,
    error: string,
    statusCode: number | null,
    now: Date,
    also: { attempt_count?: number } = {},
  ) {
    await updateAction(db, row.id, {
      ...also,
      status: assertTransition(from, event),
      next_attempt_at: null,
      lease_until: null,
      last_error: error,
      updated_at: now,
    });
    await this.p.callbacks.enqueue(db, row, 'action.failed', {
      status: 'failed',
      response_code: statusCode,
      total_attempts: row.attempt_count,
      error_message: error,
    });
    await this.p.operatorEvents?.record(db, {
      account_id: row.account_id,
      type: 'action.failed',
      at: now,
      destination_host: row.destination_host,
      subject: { type: 'action', id: row.id },
      details: {
        name: row.name,
        mode: row.mode,
        dedup_keys: row.dedup_keys,
        status_code: statusCode,
        attempts: row.attempt_count,
        error,
      },
    });
  }

  /**
   * Hands back actions whose worker stopped mid-attempt (lease expired): the lost attempt is logged and the action
   * is retried at once, or fails when that was its last attempt. Safe to run from every worker at once.
   */
  async sweepExpiredLeases(): Promise<number> {
    let swept = 0;
    for (const id of await expiredLeases(this.p.store.sql, this.p.clock())) {
      swept += await this.p.store.transaction(async (db) => {
        const now = this.p.clock();
        const row = await lockExpiredLease(db, id, now);
        if (!row) return 0;
        const started = new Date(row.lease_until!.getTime() - this.leaseMs());
        const error = 'the worker stopped during this attempt (its lease expired); retrying';
        if (row.mode === 'webhook') {
          // Logged as a retryable attempt that started when the lease was taken and lasted until now.
          await insertAttempt(db, {
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
          });
        }
        if (row.mode === 'webhook' && row.attempt_count >= row.max_attempts) {
          const reason = 'the last attempt was lost when its worker stopped';
          await this.finishFailed(db, row, row.status, 'deliver_failed_permanently', reason, null, now);
          return 1;
        }
        await updateAction(db, row.id, {
          status: assertTransition(row.status, 'lease_expired'),
          next_attempt_at: now,
          lease_until: null,
          last_error: error,
          updated_at: now,
        });
        await this.p.scheduler.schedule(db, row.id, now);
        return 1;
      });
    }
    return swept;
  }
}
