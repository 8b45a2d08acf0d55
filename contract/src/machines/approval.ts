import { RECIPIENT_STATUS, type RecipientStatus } from '../schemas/approval.js';
import type { ActionState } from '../vocabulary.js';
import { isTerminal } from './action.js';

// What an operator may ask of an approval right now: the service answers 409 by these rules, and the console offers
// its Remind and Reassign buttons by the same ones.

/**
 * Why a reminder cannot go out now (`POST /v1/actions/{id}/remind` answers 409), or null when it can: the approval
 * must be waiting for an answer, and someone must not have answered.
 */
export function remindRefusal(
  action: { mode: string; status: string },
  recipients: readonly { status: string }[],
): 'not_waiting' | 'all_answered' | null {
  if (action.mode !== 'approval' || action.status !== 'awaiting_response') return 'not_waiting';
  if (!recipients.some((r) => r.status === RECIPIENT_STATUS.pending)) return 'all_answered';
  return null;
}

/**
 * Reassigning a gate recipient (`POST /v1/actions/{id}/recipients/{recipient_id}/reassign`): the recipient is handed
 * over to another, who takes its place in the gate. Pure: the states in, the refusal (a 409's message) or null out.
 * One table, read top down (the first row that matches refuses):
 *
 * | condition                                               | refusal                                    |
 * |---------------------------------------------------------|--------------------------------------------|
 * | the action is not an approval                           | nothing to reassign                        |
 * | the action is finished (a terminal state)               | the gate no longer waits for answers       |
 * | the action is paused                                    | resume it first (nothing moves while held) |
 * | a round of messages is being sent (`executing`)         | try again in a moment                      |
 * | the recipient confirmed or declined                     | it has answered                            |
 * | the recipient was reassigned already                    | it is no longer on the gate                |
 *
 * A snoozed recipient may be reassigned: a snooze is "later", not a decision.
 */
export function reassignRefusal(
  action: { id: string; mode: string; status: ActionState },
  /** Null to ask about the action alone (before its recipient is looked up). */
  recipient: { address: string; status: RecipientStatus } | null,
): string | null {
  const rows: [boolean, () => string][] = [
    [action.mode !== 'approval', () => `action ${action.id} is not an approval: it has no recipients`],
    [
      isTerminal(action.status),
      () => `action ${action.id} is ${action.status}: its gate no longer waits for answers`,
    ],
    [action.status === 'paused', () => `action ${action.id} is paused; resume it before reassigning`],
    [
      action.status === 'executing',
      () => `a round of messages of action ${action.id} is being sent right now; try again in a moment`,
    ],
    [
      recipient?.status === RECIPIENT_STATUS.confirmed || recipient?.status === RECIPIENT_STATUS.declined,
      () =>
        `${recipient!.address} has already answered (${recipient!.status}); an answer cannot be reassigned`,
    ],
    [
      recipient?.status === RECIPIENT_STATUS.reassigned,
      () => `${recipient!.address} was already reassigned and is no longer on the gate`,
    ],
  ];
  return rows.find(([when]) => when)?.[1]() ?? null;
}
