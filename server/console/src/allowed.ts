// Which buttons a state allows, read from the state tables the service applies (`@sched/contract/machines`: one rule,
// one piece of code): the console never offers a transition the service would refuse.
import {
  ACTION_TRANSITIONS,
  CHAIN_CANCELLABLE_STATES,
  CIRCUIT_TRANSITIONS,
  isCancellable,
  isTerminal,
  parseActionStatus,
  reassignRefusal,
  remindRefusal,
} from '@sched/contract/machines';
import type { Action, ApprovalSummary, Chain, Destination, Recipient } from '@sched/sdk';

export const canCancelAction = (a: Pick<Action, 'status'>) => isCancellable(a.status);

/** `POST /v1/actions/{id}/retry`: the `manual_retry` transition, for actions with a request to send. */
export const canRetryAction = (a: Pick<Action, 'status' | 'request'>) =>
  a.request !== null && ACTION_TRANSITIONS.some((t) => t.from === a.status && t.event === 'manual_retry');

/** `POST /v1/actions/{id}/pause` and `/resume`: the `pause` and `resume` transitions of the same table. */
export const canPauseAction = (a: Pick<Action, 'status'>) =>
  ACTION_TRANSITIONS.some((t) => t.from === a.status && t.event === 'pause');
export const canResumeAction = (a: Pick<Action, 'status'>) =>
  ACTION_TRANSITIONS.some((t) => t.from === a.status && t.event === 'resume');

/** `POST /v1/actions/{id}/reschedule` and `/run`: the `reschedule` and `run_now` transitions (run: webhooks only). */
export const canRescheduleAction = (a: Pick<Action, 'status'>) =>
  ACTION_TRANSITIONS.some((t) => t.from === a.status && t.event === 'reschedule');
export const canRunAction = (a: Pick<Action, 'status' | 'mode'>) =>
  a.mode === 'webhook' && ACTION_TRANSITIONS.some((t) => t.from === a.status && t.event === 'run_now');

/** `POST /v1/actions/{id}/replay`: a new action from a final one's definition. */
export const canReplayAction = (a: Pick<Action, 'status' | 'request'>) =>
  a.request !== null && isTerminal(a.status);

export const canCancelChain = (c: Pick<Chain, 'status'>) =>
  (CHAIN_CANCELLABLE_STATES as readonly string[]).includes(c.status);

/**
 * `POST /v1/actions/{id}/remind`: the server's own rule (409 otherwise). A row of `GET /v1/approvals` carries no
 * `mode`: every one is an approval.
 */
export const canRemind = (a: Pick<ApprovalSummary, 'status' | 'recipients'> & { mode?: Action['mode'] }) =>
  remindRefusal({ mode: a.mode ?? 'approval', status: a.status }, a.recipients) === null;

/** `POST /v1/destinations/{host}/enable`: the `enable` transition of the circuit's table (from any state but closed). */
export const canEnableDestination = (d: { circuit: Pick<Destination['circuit'], 'state'> }) =>
  CIRCUIT_TRANSITIONS.some((t) => t.from === d.circuit.state && t.event === 'enable');

/**
 * `POST /v1/actions/{id}/recipients/{recipient_id}/reassign`: the server's own table (409 otherwise): an approval
 * not finished, paused or sending, and a recipient who has neither answered nor been reassigned.
 */
export const canReassign = (
  a: Pick<ApprovalSummary, 'id' | 'status'> & { mode?: Action['mode'] },
  r: Pick<Recipient, 'email' | 'status'>,
) => {
  const status = parseActionStatus(a.status);
  return (
    status !== null &&
    reassignRefusal(
      { id: a.id, mode: a.mode ?? 'approval', status },
      { address: r.email, status: r.status },
    ) === null
  );
};
