/**
 * Action states and transitions (spec 3.1), declared once as data and reused by the contract, the entities,
 * the use cases and the handlers.
 *
 * Glossary of events (the trigger column of 3.1; the extensions below are marked):
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
 * - manual_retry: `POST /actions/{id}/retry` on a failed action.
 * - recur (extension): a recurring action succeeded and is re-scheduled for its next occurrence.
 * - lease_expired (extension): the worker executing the action died; the action goes back to `resolved` so it
 *   is delivered again, never left in `executing`.
 * - condition_cancel / condition_fail / condition_reschedule (extension): `coordination.on_execute` found its
 *   condition not met when the time arrived (evaluated before `start`), with on_condition_not_met
 *   `cancel`, `fail` or `reschedule` (resolved -> resolved at a later time).
 */

export const ACTION_STATES = Object.freeze([
  'scheduled',
  'resolved',
  'executing',
  'awaiting_response',
  'executed',
  'failed',
  'expired',
  'cancelled',
] as const);
export type ActionState = (typeof ACTION_STATES)[number];

/** `failed` is terminal even though `manual_retry` can revive it. */
export const TERMINAL_STATES = Object.freeze([
  'executed',
  'failed',
  'expired',
  'cancelled',
] as const satisfies readonly ActionState[]);
export const NON_TERMINAL_STATES = Object.freeze([
  'scheduled',
  'resolved',
  'executing',
  'awaiting_response',
] as const satisfies readonly ActionState[]);
/** `executing` is not cancellable: the request may already be on the wire. */
export const CANCELLABLE_STATES = Object.freeze([
  'scheduled',
  'resolved',
  'awaiting_response',
] as const satisfies readonly ActionState[]);

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
  'manual_retry',
  'recur',
  'lease_expired',
  'condition_cancel',
  'condition_fail',
  'condition_reschedule',
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
      ['awaiting_response', 'cancel', 'cancelled'],
      ['failed', 'manual_retry', 'resolved'],
      // Extensions: a snoozed approval (scheduled, or resolved shortly before its reminder) still takes answers.
      ['scheduled', 'confirm', 'executed'],
      ['scheduled', 'decline', 'failed'],
      ['scheduled', 'snooze', 'scheduled'],
      ['resolved', 'confirm', 'executed'],
      ['resolved', 'decline', 'failed'],
      ['resolved', 'snooze', 'scheduled'],
    ] as const
  ).map(([from, event, to]) => Object.freeze({ from, event, to })),
);

const TABLE: ReadonlyMap<string, ActionState> = new Map(
  ACTION_TRANSITIONS.map((t) => [`${t.from}:${t.event}`, t.to]),
);

export function nextState(from: ActionState, event: ActionEvent): ActionState | null {
  return TABLE.get(`${from}:${event}`) ?? null;
}

export function canTransition(from: ActionState, event: ActionEvent): boolean {
  return TABLE.has(`${from}:${event}`);
}

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

export function isActionState(value: unknown): value is ActionState {
  return (ACTION_STATES as readonly unknown[]).includes(value);
}

export function isTerminal(state: ActionState): boolean {
  return (TERMINAL_STATES as readonly ActionState[]).includes(state);
}

export function isCancellable(state: ActionState): boolean {
  return (CANCELLABLE_STATES as readonly ActionState[]).includes(state);
}

/** Deprecated status names (spec 9) and the current state each stands for. */
export const LEGACY_STATUS_ALIASES: Readonly<Record<string, ActionState>> = Object.freeze({
  pending_resolution: 'scheduled',
});

/** Reads a status given by a client in the current or legacy name; `null` when unknown. */
export function parseActionStatus(value: string): ActionState | null {
  if (isActionState(value)) return value;
  return Object.hasOwn(LEGACY_STATUS_ALIASES, value) ? LEGACY_STATUS_ALIASES[value]! : null;
}

/** The legacy name of a state, for clients that still speak it (`scheduled` -> `pending_resolution`). */
export function toLegacyStatus(state: ActionState): string {
  return Object.entries(LEGACY_STATUS_ALIASES).find(([, current]) => current === state)?.[0] ?? state;
}
