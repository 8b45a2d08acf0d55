import {
  CONFIRMATION_MODE,
  type ConfirmationMode,
  ON_TIMEOUT,
  type OnTimeout,
  RECIPIENT_ROLE,
  RECIPIENT_STATUS,
  type RecipientRole,
  type RecipientStatus,
} from '@sched/contract';
import type { ActionEvent } from '../action/states.js';
import { type QuorumDecision, type QuorumVoter, quorumDecision } from './quorum.js';
import { isOnGate, namedBy } from './reassign.js';

/**
 * When an approval gate is decided: the one answer to "is it granted, declined, or still waiting?". Pure: the gate's
 * rule, its recipients as they stand (the answer being decided already recorded) and what just happened in; the
 * decision, with the action event it applies, out. Read top down, the first row that matches decides:
 *
 * | what happened                   | mode                       | condition                                  | decision          |
 * |---------------------------------|----------------------------|--------------------------------------------|-------------------|
 * | the timeout                     | any                        | `on_timeout: approve`                      | granted           |
 * | the timeout                     | any                        | `on_timeout: expire` / `cancel`            | timed out         |
 * | an escalation contact confirms  | any                        | (escalating to them is for deciding alone) | granted           |
 * | anything else                   | quorum                     | the quorum table (quorum.ts)               | as it says        |
 * | a decline                       | first_response, all_required |                                          | declined          |
 * | a confirmation                  | first_response             |                                            | granted           |
 * | a confirmation                  | all_required               | every recipient still on the gate confirmed | granted          |
 * | otherwise (and the standing)    |                            |                                            | waiting           |
 *
 * `standing` asks without an event (the response page's progress): only the quorum table can then say more than
 * "waiting". A reassignment never changes a decision: the recipient handed over was pending and so is its successor.
 */
export interface DecidingGate {
  confirmation_mode: ConfirmationMode;
  min_approvals?: number | null | undefined;
  required_recipients?: readonly string[] | null | undefined;
  exclude_requester?: string | null | undefined;
  on_timeout: OnTimeout;
}

/** A recipient of the gate as stored: its role, its answer so far, and what names it. */
export interface GateVoter {
  role: RecipientRole;
  status: RecipientStatus;
  reference: string;
  address: string;
}

export type GateEvent =
  | { kind: 'answer'; decision: 'confirm' | 'decline'; role: RecipientRole }
  | { kind: 'timeout' }
  | { kind: 'standing' };

export type GateDecision =
  | { kind: 'granted'; event: Extract<ActionEvent, 'confirm' | 'timeout_approve'> }
  | { kind: 'declined'; event: 'decline'; reason: 'declined' | 'required_declined' | 'unreachable' }
  | { kind: 'timed_out'; event: Extract<ActionEvent, 'timeout_expire' | 'timeout_cancel'> }
  | { kind: 'waiting'; approvalsNeeded: number | null };

export function gateDecision(
  gate: DecidingGate,
  recipients: readonly GateVoter[],
  happened: GateEvent,
): GateDecision {
  if (happened.kind === 'timeout') {
    if (gate.on_timeout === ON_TIMEOUT.approve) return { kind: 'granted', event: 'timeout_approve' };
    return {
      kind: 'timed_out',
      event: gate.on_timeout === ON_TIMEOUT.expire ? 'timeout_expire' : 'timeout_cancel',
    };
  }
  const answer = happened.kind === 'answer' ? happened : null;
  if (answer?.decision === 'confirm' && answer.role === RECIPIENT_ROLE.escalation)
    return { kind: 'granted', event: 'confirm' };
  const quorum = quorumOf(gate, recipients);
  if (quorum) {
    if (quorum.kind === 'granted') return { kind: 'granted', event: 'confirm' };
    if (quorum.kind === 'declined') return { kind: 'declined', event: 'decline', reason: quorum.reason };
    return { kind: 'waiting', approvalsNeeded: quorum.approvalsNeeded };
  }
  if (answer?.decision === 'decline') return { kind: 'declined', event: 'decline', reason: 'declined' };
  if (
    answer?.decision === 'confirm' &&
    (gate.confirmation_mode === CONFIRMATION_MODE.first_response ||
      onGate(recipients).every((r) => r.status === RECIPIENT_STATUS.confirmed))
  )
    return { kind: 'granted', event: 'confirm' };
  return { kind: 'waiting', approvalsNeeded: null };
}

/** Whether a recipient is the gate's `exclude_requester`, who may not approve their own request. */
export function isRequester(gate: Pick<DecidingGate, 'exclude_requester'>, r: GateVoter): boolean {
  return (
    !!gate.exclude_requester && r.role === RECIPIENT_ROLE.recipient && namedBy(r, gate.exclude_requester)
  );
}

/** The recipients (not escalation contacts) still standing on the gate. */
export function onGate<R extends GateVoter>(recipients: readonly R[]): R[] {
  return recipients.filter((r) => r.role === RECIPIENT_ROLE.recipient && isOnGate(r));
}

/** A quorum gate's decision from its recipients as they stand (null for the other modes). */
function quorumOf(gate: DecidingGate, recipients: readonly GateVoter[]): QuorumDecision | null {
  if (gate.confirmation_mode !== CONFIRMATION_MODE.quorum || !gate.min_approvals) return null;
  const required = gate.required_recipients ?? [];
  return quorumDecision(
    gate.min_approvals,
    onGate(recipients).map((r) => ({
      status: r.status as QuorumVoter['status'],
      required: required.some((q) => namedBy(r, q)),
      excluded: isRequester(gate, r),
    })),
  );
}
