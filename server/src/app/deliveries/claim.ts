import { CLAIM } from '../../domain/action/set-transition.js';
import { type ActionState, assertTransition } from '../../domain/action/states.js';
import { decideOnExecute, defaultNotMetPolicy, onConditionNotMet } from '../../domain/coordination/dedup.js';
import { thresholdReopensAt } from '../../domain/domains/rules.js';
import { type ActionRow, actionsSharingKeys, lockAction, updateAction } from '../../persistence/actions.js';
import type { Sql } from '../../persistence/database.js';
import { insertAttempt } from '../../persistence/deliveries.js';
import { seriesOf } from '../actions/series.js';
import { applyActionEvent, setTransitionFields } from '../actions/transition.js';
import { DestinationThresholdError } from '../domains/guard.js';
import type { Claimed, DeliveryPorts, Held } from './attempt.js';

/** A trigger by id may fire a hair before the attempt's due time as the database stores it. */
export const CLAIM_TOLERANCE_MS = 25;
/** States an attempt is claimed from, and the state it is claimed into, as the state table says (`CLAIM`). */
const CLAIMABLE: readonly ActionState[] = CLAIM.from;
export const CLAIMED: ActionState = CLAIM.to;

type ClaimPorts = Pick<
  DeliveryPorts,
  | 'store'
  | 'clock'
  | 'waits'
  | 'breaker'
  | 'countDestination'
  | 'scheduler'
  | 'callbacks'
  | 'operatorEvents'
  | 'events'
>;

/**
 * The claim stage's careful path, by id, in a transaction that holds the action's row (`FOR UPDATE SKIP LOCKED`):
 * what the one-statement claim cannot decide. In order: the coordination rule of a first attempt, attempts left,
 * the destination threshold of a send counted now, the host's admission (flow control, the circuit's probe); then the
 * claim itself. Answers the claimed attempt, a hold (when to look again), or null (not this worker's, or settled).
 */
export class CarefulClaim {
  constructor(private readonly p: ClaimPorts) {}

  claim(actionId: string, leaseMs: number): Promise<Claimed | Held | null> {
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
        await applyActionEvent(db, row, 'deliver_failed_permanently', { now, from: status, error }, this.p);
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
      const leaseUntil = new Date(now.getTime() + leaseMs);
      let probe = false;
      if (webhook && row.destination_origin) {
        const slot = await this.p.breaker.admit(db, {
          accountId: row.account_id,
          origin: row.destination_origin,
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
      // The claim takes the lease the other events end: written as the one-statement claims write it (`CLAIM`).
      const claimed = await updateAction(db, row.id, {
        ...setTransitionFields(CLAIM, row.status, { now, leaseUntil }),
        counted_occurrence: counted,
        // attempt_count counts HTTP delivery attempts; a gate's rounds of messages are not attempts.
        attempt_count: row.attempt_count + (webhook ? 1 : 0),
        held_since: null,
        held_by: null,
      });
      const held = row.held_since && row.held_by ? { since: row.held_since, by: row.held_by } : null;
      return { row: claimed, action: claimed, dueAt: row.next_attempt_at, held, probe };
    });
  }

  /**
   * Counts a send the create did not count (a later occurrence of a series, a later round's post-approval request)
   * against its destination's threshold as it is claimed, in the counters of whoever made the action. `uncounted`:
   * the destination is verified now (or private), and later sends are not counted. Past the threshold the send is not
   * made (`blocked`).
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
      const set = { attempt_count: attempted.attempt_count };
      await applyActionEvent(db, attempted, 'threshold_blocked', { now, from: status, error, set }, this.p);
      return;
    }
    await applyActionEvent(
      db,
      row,
      'threshold_skip',
      {
        now,
        from: status,
        error,
        nextAttemptAt: next.at,
        set: { scheduled_for: next.at, recurrence_index: next.index, attempt_count: 0, reschedule_count: 0 },
      },
      this.p,
    );
  }

  /** The action's `coordination.on_execute` rule when its time arrives. Answers true when the attempt may go ahead. */
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
      await applyActionEvent(
        db,
        row,
        'condition_reschedule',
        {
          now,
          from: status,
          error: `${reason}; rescheduled`,
          nextAttemptAt: new Date(now.getTime() + this.p.waits.wait(rule.reschedule_delay * 1000)),
          set: { reschedule_count: row.reschedule_count + 1 },
        },
        this.p,
      );
    } else if (decision.kind === 'cancel') {
      const error =
        decision.reason === 'max_reschedules_reached'
          ? `${reason} after ${row.reschedule_count} reschedules`
          : reason;
      await applyActionEvent(db, row, 'condition_cancel', { now, from: status, error }, this.p);
    } else {
      await applyActionEvent(db, row, 'condition_fail', { now, from: status, error: reason }, this.p);
    }
    return false;
  }
}
