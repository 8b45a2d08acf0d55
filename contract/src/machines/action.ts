import { ACTION_STATES, type ActionState, LEGACY_ACTION_STATES } from '../vocabulary.js';

/**
 * Action transitions, declared once as data: every state change of the service is checked through
 * `assertTransition`, and the state sets below are derived from the table. It lives in the contract so the console
 * offers a button by the same table the service applies (server/src/domain/action/states.ts re-exports it). The
 * states themselves are the contract's vocabulary (`ACTION_STATES`, contract/src/vocabulary.ts).
 *
 * Glossary of events (the interface's triggers; the extensions below are marked):
 * - resolve: the schedule resolved to an exact timestamp.
 * - start: the scheduled time arrived; a worker claims the action.
 * - deliver_succeeded: the webhook answered 2xx.
 * - deliver_failed_permanently: a permanent failure, or the attempts are exhausted.
 * - deliver_failed_retryable: a retryable failure with attempts remaining; waits per the retry strategy.
 * - reminder_delivered: approval mode; the reminder went out.
 * - confirm / decline / snooze: a recipient's response (approval mode).
 * - timeout_expire / timeout_cancel / timeout_approve: the gate timed out; `gate.on_timeout` picks the event
 *   (`expire` -> expired, `cancel` -> cancelled, `approve` -> executed as if confirmed).
 * - cancel: cancellation through the API (only from CANCELLABLE_STATES).
 * - chain_cancel (extension): the action's chain was cancelled (from the same states as `cancel`).
 * - manual_retry: `POST /actions/{id}/retry` on a failed action.
 * - recur (extension): a recurring action succeeded (a webhook's 2xx, an approval granted) and is re-scheduled for
 *   its next occurrence.
 * - lease_expired (extension): the worker executing the action died; the action goes back to `resolved` so it
 *   is delivered again, never left in `executing`.
 * - condition_cancel / condition_fail / condition_reschedule (extension): `coordination.on_execute` found its
 *   condition not met when the time arrived (evaluated before `start`), with on_condition_not_met
 *   `cancel`, `fail` or `reschedule` (resolved -> resolved at a later time).
 * - pause (extension): `POST /actions/{id}/pause`; nothing is sent and an approval's clocks stop until resumed.
 * - resume (extension): back on the schedule (`scheduled`; the scan resolves it again and writes its job).
 * - resume_skip (extension): `missed: skip` moved a series on to its first occurrence after now (`scheduled`).
 * - resume_awaiting (extension): an approval whose request was already sent waits for its answers again.
 * - resume_expire (extension): `missed: skip` dropped the only moment left (a one-time action whose time passed,
 *   or a series whose end date passed while paused): nothing will ever run.
 * - threshold_skip / threshold_blocked (extension): a send counted when it is made (a later occurrence of a series,
 *   a later round's post-approval request) found its unverified destination past the day or month threshold:
 *   it is not sent; a series skips to its first occurrence of the next UTC day
 *   (resolved -> resolved), an action with nothing left to run fails.
 * - reschedule (extension): `POST /actions/{id}/reschedule` gave a pending action a new time (a paused one stays
 *   paused).
 * - run_now (extension): `POST /actions/{id}/run`: a pending webhook action is due at once (or at its window's next
 *   opening); a paused one leaves its pause.
 */

export const ACTION_EVENTS = Object.freeze([
  'resolve',
  'start',
  'deliver_succeeded',
  'deliver_failed_permanently',
  'deliver_failed_retryable',
  'reminder_delivered',
  'confirm',
  'decline',
  'snooze',
  'timeout_expire',
  'timeout_cancel',
  'timeout_approve',
  'cancel',
  'chain_cancel',
  'manual_retry',
  'recur',
  'lease_expired',
  'condition_cancel',
  'condition_fail',
  'condition_reschedule',
  'pause',
  'resume',
  'resume_skip',
  'resume_awaiting',
  'resume_expire',
  'threshold_skip',
  'threshold_blocked',
  'reschedule',
  'run_now',
] as const);
export type ActionEvent = (typeof ACTION_EVENTS)[number];

export interface ActionTransition {
  from: ActionState;
  event: ActionEvent;
  to: ActionState;
}

/** Every allowed transition; anything absent is forbidden. */
export const ACTION_TRANSITIONS: readonly ActionTransition[] = Object.freeze(
  (
    [
      ['scheduled', 'resolve', 'resolved'],
      ['scheduled', 'cancel', 'cancelled'],
      ['resolved', 'start', 'executing'],
      ['resolved', 'cancel', 'cancelled'],
      ['resolved', 'condition_cancel', 'cancelled'],
      ['resolved', 'condition_fail', 'failed'],
      ['resolved', 'condition_reschedule', 'resolved'],
      ['resolved', 'threshold_skip', 'resolved'],
      ['resolved', 'threshold_blocked', 'failed'],
      ['executing', 'deliver_succeeded', 'executed'],
      ['executing', 'deliver_failed_permanently', 'failed'],
      ['executing', 'deliver_failed_retryable', 'resolved'],
      ['executing', 'reminder_delivered', 'awaiting_response'],
      ['executing', 'recur', 'resolved'],
      ['executing', 'lease_expired', 'resolved'],
      ['awaiting_response', 'confirm', 'executed'],
      ['awaiting_response', 'decline', 'failed'],
      ['awaiting_response', 'snooze', 'scheduled'],
      ['awaiting_response', 'timeout_expire', 'expired'],
      ['awaiting_response', 'timeout_cancel', 'cancelled'],
      ['awaiting_response', 'timeout_approve', 'executed'],
      ['awaiting_response', 'recur', 'resolved'],
      ['awaiting_response', 'cancel', 'cancelled'],
      ['failed', 'manual_retry', 'resolved'],
      // Extensions: a snoozed approval (scheduled, or resolved shortly before its reminder) still takes answers.
      ['scheduled', 'confirm', 'executed'],
      ['scheduled', 'decline', 'failed'],
      ['scheduled', 'snooze', 'scheduled'],
      ['resolved', 'confirm', 'executed'],
      ['resolved', 'decline', 'failed'],
      ['resolved', 'snooze', 'scheduled'],
      ['scheduled', 'recur', 'resolved'],
      ['resolved', 'recur', 'resolved'],
      // Pause and resume (docs/operations.md): not while a request is on the wire (`executing`).
      ['scheduled', 'pause', 'paused'],
      ['resolved', 'pause', 'paused'],
      ['awaiting_response', 'pause', 'paused'],
      ['paused', 'resume', 'scheduled'],
      ['paused', 'resume_skip', 'scheduled'],
      ['paused', 'resume_awaiting', 'awaiting_response'],
      ['paused', 'resume_expire', 'expired'],
      ['paused', 'cancel', 'cancelled'],
      // A chain's cancel reaches its step's action wherever the API's cancel would.
      ['scheduled', 'chain_cancel', 'cancelled'],
      ['resolved', 'chain_cancel', 'cancelled'],
      ['awaiting_response', 'chain_cancel', 'cancelled'],
      ['paused', 'chain_cancel', 'cancelled'],
      // Reschedule and run now: only what is waiting for its time.
      ['scheduled', 'reschedule', 'scheduled'],
      ['resolved', 'reschedule', 'scheduled'],
      ['paused', 'reschedule', 'paused'],
      ['scheduled', 'run_now', 'resolved'],
      ['resolved', 'run_now', 'resolved'],
      ['paused', 'run_now', 'resolved'],
    ] as const
  ).map(([from, event, to]) => Object.freeze({ from, event, to })),
);

const TABLE: ReadonlyMap<string, ActionState> = new Map(
  ACTION_TRANSITIONS.map((t) => [`${t.from}:${t.event}`, t.to]),
);

function nextState(from: ActionState, event: ActionEvent): ActionState | null {
  return TABLE.get(`${from}:${event}`) ?? null;
}

/** Where the API may cancel: every state with a `cancel` transition. `executing` has none (the request may be on the wire). */
export const CANCELLABLE_STATES = Object.freeze(ACTION_STATES.filter((s) => TABLE.has(`${s}:cancel`)));
/** States with no way out but the manual retry of `failed`. */
export const TERMINAL_STATES = Object.freeze(
  ACTION_STATES.filter((s) => ACTION_TRANSITIONS.every((t) => t.from !== s || t.event === 'manual_retry')),
);
/** Live states: an action in one may still fire or take answers. */
export const LIVE_STATES = Object.freeze(ACTION_STATES.filter((s) => !TERMINAL_STATES.includes(s)));

export class InvalidTransitionError extends Error {
  readonly from: ActionState;
  readonly event: ActionEvent;

  constructor(from: ActionState, event: ActionEvent) {
    super(`An action in state "${from}" cannot take event "${event}"`);
    this.name = 'InvalidTransitionError';
    this.from = from;
    this.event = event;
  }
}

/** The target state, or an InvalidTransitionError. */
export function assertTransition(from: ActionState, event: ActionEvent): ActionState {
  const to = nextState(from, event);
  if (to === null) throw new InvalidTransitionError(from, event);
  return to;
}

function isActionState(value: unknown): value is ActionState {
  return (ACTION_STATES as readonly unknown[]).includes(value);
}

export function isTerminal(state: ActionState): boolean {
  return TERMINAL_STATES.includes(state);
}

export function isCancellable(state: ActionState): boolean {
  return CANCELLABLE_STATES.includes(state);
}

/** Where `POST /actions/{id}/pause` applies: every state with a `pause` transition. */
export const PAUSABLE_STATES = Object.freeze(ACTION_STATES.filter((s) => TABLE.has(`${s}:pause`)));

export function isPausable(state: ActionState): boolean {
  return PAUSABLE_STATES.includes(state);
}

/** Where `POST /actions/{id}/reschedule` and `/run` apply: the states with those transitions. */
export const RESCHEDULABLE_STATES = Object.freeze(ACTION_STATES.filter((s) => TABLE.has(`${s}:reschedule`)));
export const RUNNABLE_STATES = Object.freeze(ACTION_STATES.filter((s) => TABLE.has(`${s}:run_now`)));

/** Reads a status given by a client in the current or legacy name; `null` when unknown. */
export function parseActionStatus(value: string): ActionState | null {
  if (isActionState(value)) return value;
  return Object.hasOwn(LEGACY_ACTION_STATES, value)
    ? LEGACY_ACTION_STATES[value as keyof typeof LEGACY_ACTION_STATES]
    : null;
}
