import type { ActionState } from '@sched/contract';

export { ACTION_STATES, type ActionState } from '@sched/contract';

// The transition table, its events and the state sets derived from it are the contract's (contract/src/machines/
// action.ts), shared with the console; re-exported here, where the server's modules have always read them.
export {
  ACTION_EVENTS,
  ACTION_TRANSITIONS,
  type ActionEvent,
  type ActionTransition,
  assertTransition,
  CANCELLABLE_STATES,
  InvalidTransitionError,
  isCancellable,
  isPausable,
  isTerminal,
  LIVE_STATES,
  PAUSABLE_STATES,
  parseActionStatus,
  RESCHEDULABLE_STATES,
  RUNNABLE_STATES,
  TERMINAL_STATES,
} from '@sched/contract/machines';

/**
 * The states of one attempt's way from its schedule to its outcome: waiting, due, in flight. The promote (`resolve`),
 * the claim (`start`) and a lost lease move between them, several times per delivery, so the row's `phase` (what
 * every index of `actions` reads instead of the state) stays `pending` through them and those updates rewrite no
 * index entry (PostgreSQL's HOT updates). Only an outcome that leaves them changes the phase.
 */
export const PENDING_STATES: readonly ActionState[] = Object.freeze(['scheduled', 'resolved', 'executing']);
export const PENDING_PHASE = 'pending';
export type ActionPhase = typeof PENDING_PHASE | Exclude<ActionState, 'scheduled' | 'resolved' | 'executing'>;

/** The phase of a state: `pending` for the pending states, the state itself for the others. */
export function phaseOf(state: ActionState): ActionPhase {
  return PENDING_STATES.includes(state) ? PENDING_PHASE : (state as ActionPhase);
}
