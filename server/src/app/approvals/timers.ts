import { RECIPIENT_STATUS, REMINDER_EVENT } from '@sched/contract';
import { gateDecision } from '../../domain/approval/decision.js';
import { applyActionEvent } from '../actions/transition.js';
import type { ActionState } from '../../domain/action/states.js';
import { findGateAction } from '../../persistence/approvals/gates.js';
import { recipientsOf } from '../../persistence/approvals/recipients.js';
import { addToTimeline } from '../../persistence/timeline.js';
import type {
  ActionScheduler,
  CallbackQueue,
  Clock,
  GateTimer,
  GateTimers,
  OperatorEvents,
  Store,
} from '../ports.js';
import { grantGate } from './outcomes.js';
import type { Waits } from '../waits.js';
import { type ApprovalRounds, WAITING } from './rounds.js';

export interface GateTimeoutsDeps {
  store: Store;
  timers: GateTimers;
  scheduler: ActionScheduler;
  callbacks: CallbackQueue;
  clock: Clock;
  /** Places a recurring approval's next occurrence (SCHED_TIME_SCALE). */
  waits: Waits;
  rounds: Pick<ApprovalRounds, 'escalate' | 'remind' | 'sendToReassigned'>;
  /** Where `approval.expired` is recorded for alert rules, in the timeout's transaction. */
  events?: OperatorEvents;
}

/**
 * Applies a gate's timers when they fire (jobs/gate-timers.ts): the timeout with its `on_timeout` rule, or the
 * escalation, a reminder, a reassigned recipient's first message (rounds.ts). Idempotent: a timer that no longer applies does nothing.
 */
export class GateTimeouts {
  constructor(private readonly deps: GateTimeoutsDeps) {}

  async fire(timer: GateTimer): Promise<void> {
    if (timer.kind === 'timeout') await this.timeout(timer.actionId);
    else if (timer.kind === 'reminder') await this.deps.rounds.remind(timer);
    else if (timer.kind === 'reassigned') await this.deps.rounds.sendToReassigned(timer);
    else await this.deps.rounds.escalate(timer);
  }

  private async timeout(actionId: string): Promise<void> {
    const now = this.deps.clock();
    await this.deps.store.transaction(async (tx) => {
      const row = await findGateAction(tx, actionId, { forUpdate: true });
      if (!row?.gate?.expires_at) return;
      const expiresAt = new Date(row.gate.expires_at);
      // A round in flight (or a timer that fired early, or one of an earlier round): look again at the expiry.
      if (row.status === 'executing' || expiresAt.getTime() > now.getTime() + 50) {
        const at = new Date(Math.max(expiresAt.getTime(), now.getTime() + 1000));
        await this.deps.timers.set(
          tx,
          { actionId, kind: 'timeout', round: row.gate.sent_at ?? undefined },
          at,
        );
        return;
      }
      if (!WAITING.includes(row.status)) return;
      // A snoozed gate (scheduled) times out like a waiting one: its state is moved back first.
      const from: ActionState = row.status === 'awaiting_response' ? row.status : 'awaiting_response';
      const rule = row.gate.on_timeout;
      const recipients = await recipientsOf(tx, actionId);
      const decision = gateDecision(row.gate, recipients, { kind: 'timeout' });
      const pending = recipients
        .filter((r) => r.status === RECIPIENT_STATUS.pending || r.status === RECIPIENT_STATUS.snoozed)
        .map((r) => r.address);
      // The callback `action.expired` (domain/action/effects.ts) tells the rule and who did not answer.
      const callback = {
        on_timeout: rule,
        timeout: row.gate.timeout,
        expired_at: now.toISOString(),
        pending_recipients: pending,
      };
      const timedOut = { ...row, status: from };
      let status: ActionState;
      if (decision.kind === 'granted') {
        status = (await grantGate(tx, timedOut, decision.event, this.deps, { callback })).status;
      } else if (decision.kind === 'timed_out') {
        const error = `no answer within ${row.gate.timeout}`;
        ({ status } = await applyActionEvent(
          tx,
          timedOut,
          decision.event,
          { now, error, gate: {}, callback },
          this.deps,
        ));
      } else throw new Error('a timeout always decides its gate');
      await addToTimeline(tx, actionId, [
        {
          type: REMINDER_EVENT.expired,
          actor: null,
          notes: `no answer within ${row.gate.timeout}; on_timeout=${rule}`,
        },
      ]);
      await this.deps.events?.record(tx, {
        account_id: row.account_id,
        type: 'approval.expired',
        at: now,
        destination_host: row.destination_host,
        subject: { type: 'action', id: actionId },
        details: {
          name: row.name,
          mode: row.mode,
          dedup_keys: row.dedup_keys,
          on_timeout: rule,
          timeout: row.gate.timeout,
          status,
          pending_recipients: pending.length,
        },
      });
    });
  }
}
