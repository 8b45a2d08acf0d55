import { ALERT_LIMITS } from '@sched/contract';
import { MAX_CLAIM_AHEAD_MS } from '../../domain/action/due-horizon.js';
import type { AttemptRow } from '../../persistence/delivery-claims.js';
import { systemTimers } from '../clock.js';
import type { OutboundResult } from '../ports.js';
import type { AttemptContext, Claimed, DeliveryPorts } from './attempt.js';
import { buildRequest } from './request.js';

type SendPorts = Pick<
  DeliveryPorts,
  | 'clock'
  | 'timers'
  | 'outbound'
  | 'signing'
  | 'tracing'
  | 'settled'
  | 'lateness'
  | 'operatorEvents'
  | 'events'
  | 'approvals'
>;

/**
 * The send stage: a claimed attempt waits for its due time (it may have been claimed a little ahead), then its
 * request is signed and sent outside any transaction (or, for an approval, its round of messages goes out). Answers
 * the attempt and what came back, for the record stage; null for an approval's round, which records itself.
 */
export class AttemptSender {
  constructor(private readonly p: SendPorts) {}

  async send(
    claimed: Claimed,
    timeoutMs: number,
  ): Promise<{ attempt: AttemptContext; result: OutboundResult } | null> {
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
      return null;
    }
    const listened = this.p.settled?.listensTo(row) ?? null;
    const secrets = await this.p.signing
      ?.secretsFor(row.account_id, row.webhook_secret)
      .catch(() => undefined);
    const request = buildRequest(row, started, timeoutMs, listened?.responseBytes, secrets);
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
    span?.end(
      result.kind === 'response' ? { status: result.status } : { status: null, error: result.message },
    );
    return {
      attempt: {
        row,
        dueAt,
        started,
        held,
        probe: claimed.probe,
        late: await late,
        listened: listened !== null,
      },
      result,
    };
  }

  /**
   * Whether the attempt is late enough to record for an alert rule. An attempt less late than the smallest
   * `late_after` a rule may set asks nothing (the hot path pays a comparison); a later one asks the account's
   * threshold, which is cached per process (app/alerts/watch.ts).
   */
  private async late(row: AttemptRow, latenessMs: number): Promise<AttemptContext['late']> {
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
}
