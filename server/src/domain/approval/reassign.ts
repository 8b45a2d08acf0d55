import { RECIPIENT_STATUS, type RecipientStatus } from '@sched/contract';
import { type ActionState, isTerminal } from '../action/states.js';
import { recipientMatches } from './recipient-match.js';

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

/** Whether a recipient still stands on its gate: one handed over to another no longer counts or answers. */
export function isOnGate(r: { status: string }): boolean {
  return r.status !== RECIPIENT_STATUS.reassigned;
}

/** Whether a `required_recipients` / `exclude_requester` entry names a stored recipient (its reference or address). */
export function namedBy(r: { reference: string; address: string }, entry: string): boolean {
  return recipientMatches(r.reference, entry) || recipientMatches(r.address, entry);
}

/**
 * `gate.required_recipients` after `from` is handed over to `to`: when `from` was required, `to` is required too (its
 * reference is added unless an entry already names it). The old entries stay: they name no one on the gate any more
 * unless someone else they name is still there, who stays required.
 */
export function requiredAfterReassign(
  required: readonly string[],
  from: { reference: string; address: string },
  to: { reference: string; address: string },
): string[] {
  const wasRequired = required.some((q) => namedBy(from, q));
  const isRequired = required.some((q) => namedBy(to, q));
  return wasRequired && !isRequired ? [...required, to.reference] : [...required];
}
