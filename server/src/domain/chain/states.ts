/**
 * Chain and step state machines as data, and the pure decisions the chain engine applies: how a
 * step settles, and what happens next. The vocabularies (states, statuses, outcomes) come from the contract.
 *
 * Glossary of chain events:
 * - start: the engine begins the first step (pending -> running).
 * - complete: every step settled and none stopped the chain.
 * - fail: a step failed under `fail_chain` (pending or running -> failed); later steps become `cancelled`.
 * - cancel: `DELETE /chains/{id}` (pending or running only); pending and running steps become `cancelled`, settled
 *   steps keep their status (nothing is rolled back).
 *
 * Glossary of step events (view statuses):
 * - start: the step's work begins (request queued, gate sent, timer set).
 * - condition_false: the condition is false: `skipped`, outcome `skipped`.
 * - succeed: 2xx, a confirmation (or a timeout with `on_timeout: approve`), or the delay elapsed: `completed`.
 * - fail: a failure under `fail_chain`: `failed`.
 * - fail_skipped: a failure under `skip_step`: shown `skipped`, while the outcome stays `failed` or `declined` so a
 *   later `{{steps.N.status}} == executed` can branch on it.
 * - cancel: the chain was cancelled, or failed at an earlier step.
 * A step can fail or skip from `pending` too: its condition or an expression is read before it starts, in the
 * same transaction.
 */
import {
  type ChainState,
  type ErrorHandling,
  FAILURE_OUTCOMES,
  type OnTimeout,
  STEP_TYPE_ALIASES,
  type StepOutcome,
  type StepRequestType,
  type StepStatus,
  type StepType,
} from '@sched/contract';
import { isChainTerminal } from '@sched/contract/machines';

export const CHAIN_EVENTS = Object.freeze(['start', 'complete', 'fail', 'cancel'] as const);
export type ChainEvent = (typeof CHAIN_EVENTS)[number];

// Which states end a chain and which a cancel applies to: the contract's (shared with the console).
export {
  CHAIN_CANCELLABLE_STATES,
  CHAIN_TERMINAL_STATES,
  isChainCancellable,
  isChainTerminal,
} from '@sched/contract/machines';

export const STEP_EVENTS = Object.freeze([
  'start',
  'condition_false',
  'succeed',
  'fail',
  'fail_skipped',
  'cancel',
] as const);
export type StepEvent = (typeof STEP_EVENTS)[number];

interface Transition<S, E> {
  from: S;
  event: E;
  to: S;
}

const freezeRows = <S, E>(rows: readonly (readonly [S, E, S])[]): readonly Transition<S, E>[] =>
  Object.freeze(rows.map(([from, event, to]) => Object.freeze({ from, event, to })));

/** Every allowed chain transition; anything absent is forbidden. */
export const CHAIN_TRANSITIONS = freezeRows<ChainState, ChainEvent>([
  ['pending', 'start', 'running'],
  ['running', 'complete', 'completed'],
  ['pending', 'fail', 'failed'],
  ['running', 'fail', 'failed'],
  ['pending', 'cancel', 'cancelled'],
  ['running', 'cancel', 'cancelled'],
]);

/** Every allowed step transition; anything absent is forbidden. */
export const STEP_TRANSITIONS = freezeRows<StepStatus, StepEvent>([
  ['pending', 'start', 'running'],
  ['pending', 'condition_false', 'skipped'],
  ['pending', 'fail', 'failed'],
  ['pending', 'fail_skipped', 'skipped'],
  ['pending', 'cancel', 'cancelled'],
  ['running', 'succeed', 'completed'],
  ['running', 'fail', 'failed'],
  ['running', 'fail_skipped', 'skipped'],
  ['running', 'cancel', 'cancelled'],
]);

const tableOf = <S, E>(rows: readonly Transition<S, E>[]): ReadonlyMap<string, S> =>
  new Map(rows.map((t) => [`${t.from}:${t.event}`, t.to]));
const CHAIN_TABLE = tableOf(CHAIN_TRANSITIONS);
const STEP_TABLE = tableOf(STEP_TRANSITIONS);

export class InvalidChainTransitionError extends Error {
  constructor(
    readonly machine: 'chain' | 'step',
    readonly from: string,
    readonly event: string,
  ) {
    super(`A ${machine} in state "${from}" cannot take event "${event}"`);
    this.name = 'InvalidChainTransitionError';
  }
}

/** The chain's next state, or null when the event is not allowed from `state`. */
export function chainTransition(state: ChainState, event: ChainEvent): ChainState | null {
  return CHAIN_TABLE.get(`${state}:${event}`) ?? null;
}

/** The step's next view status, or null when the event is not allowed from `status`. */
export function stepTransition(status: StepStatus, event: StepEvent): StepStatus | null {
  return STEP_TABLE.get(`${status}:${event}`) ?? null;
}

export function assertChainTransition(state: ChainState, event: ChainEvent): ChainState {
  const to = chainTransition(state, event);
  if (to === null) throw new InvalidChainTransitionError('chain', state, event);
  return to;
}

export function assertStepTransition(status: StepStatus, event: StepEvent): StepStatus {
  const to = stepTransition(status, event);
  if (to === null) throw new InvalidChainTransitionError('step', status, event);
  return to;
}

/** `http_call` -> `webhook`, `gated` -> `approval`, `delay` -> `wait`; aliases stay as they are. */
export function stepTypeAlias(type: StepRequestType | StepType): StepType {
  return Object.hasOwn(STEP_TYPE_ALIASES, type)
    ? STEP_TYPE_ALIASES[type as StepRequestType]
    : (type as StepType);
}

export function isFailureOutcome(outcome: StepOutcome): boolean {
  return (FAILURE_OUTCOMES as readonly StepOutcome[]).includes(outcome);
}

/** What ended a step's work, as the engine observes it. */
export type StepSettlement =
  | { kind: 'condition_false' }
  | { kind: 'http_succeeded' }
  /** A permanent failure, or the attempts are exhausted. */
  | { kind: 'http_failed'; error: string }
  | { kind: 'gate_confirmed' }
  | { kind: 'gate_declined' }
  | { kind: 'gate_timed_out'; onTimeout: OnTimeout }
  | { kind: 'delay_elapsed' }
  /** The step could not run: an expression without a value, a URL or recipient refused when it was used. */
  | { kind: 'not_run'; error: string };

/** Which settlements each step type can have (besides condition_false and not_run, which any step can). */
const SETTLEMENTS_OF: Readonly<Record<StepType, readonly StepSettlement['kind'][]>> = Object.freeze({
  webhook: ['http_succeeded', 'http_failed'],
  approval: ['gate_confirmed', 'gate_declined', 'gate_timed_out'],
  wait: ['delay_elapsed'],
});

export interface SettledStep {
  outcome: StepOutcome;
  /** The step event to apply (from `pending` or `running`). */
  event: StepEvent;
  /** Shown as the step's `error`; null on success or skip. */
  error: string | null;
}

/**
 * How a step settles: its outcome (what `{{steps.N.status}}` reads) and its view transition. A declined gate, a
 * gate that timed out with `on_timeout` `cancel` or `expire` (outcome `declined`), a failed HTTP call, and a step
 * that could not run are failures: `failed` under `fail_chain`, shown `skipped` under `skip_step`.
 */
export function settleStep(
  type: StepType,
  settlement: StepSettlement,
  errorHandling: ErrorHandling,
): SettledStep {
  const failure = (outcome: StepOutcome, error: string): SettledStep => ({
    outcome,
    event: errorHandling === 'fail_chain' ? 'fail' : 'fail_skipped',
    error,
  });
  const success = (outcome: StepOutcome): SettledStep => ({ outcome, event: 'succeed', error: null });
  if (settlement.kind !== 'condition_false' && settlement.kind !== 'not_run') {
    if (!SETTLEMENTS_OF[type].includes(settlement.kind)) {
      throw new InvalidChainTransitionError('step', type, settlement.kind);
    }
  }
  switch (settlement.kind) {
    case 'condition_false':
      return { outcome: 'skipped', event: 'condition_false', error: null };
    case 'not_run':
      return failure('failed', settlement.error);
    case 'http_succeeded':
    case 'delay_elapsed':
      return success('executed');
    case 'http_failed':
      return failure('failed', settlement.error);
    case 'gate_confirmed':
      return success('confirmed');
    case 'gate_declined':
      return failure('declined', 'declined by a recipient');
    case 'gate_timed_out':
      return settlement.onTimeout === 'approve'
        ? success('confirmed')
        : failure('declined', `no answer before the gate timed out (on_timeout: ${settlement.onTimeout})`);
  }
}

/** What the engine does after a step settles (or when the chain starts). */
type NextMove = { kind: 'run_step'; step: number } | { kind: 'complete' } | { kind: 'fail'; step: number };

export interface ChainDecision {
  move: NextMove;
  /** The chain event to apply, if the chain's state changes. */
  chainEvent: ChainEvent | null;
  /** The value of `current_step` after the move. */
  currentStep: number;
}

/**
 * The pure "what next": given the chain's state, error handling and each step's outcome so far (null: not
 * settled), run the first unsettled step, fail at a failure under `fail_chain`, or complete. Steps settle in
 * order, so the first null is the next step to run.
 */
export function decideNext(
  state: ChainState,
  errorHandling: ErrorHandling,
  outcomes: readonly (StepOutcome | null)[],
): ChainDecision {
  if (isChainTerminal(state)) throw new InvalidChainTransitionError('chain', state, 'advance');
  for (let step = 0; step < outcomes.length; step++) {
    const outcome = outcomes[step];
    if (outcome === null || outcome === undefined) {
      return {
        move: { kind: 'run_step', step },
        chainEvent: state === 'pending' ? 'start' : null,
        currentStep: step,
      };
    }
    if (errorHandling === 'fail_chain' && isFailureOutcome(outcome)) {
      return { move: { kind: 'fail', step }, chainEvent: 'fail', currentStep: step };
    }
  }
  if (state === 'pending') throw new InvalidChainTransitionError('chain', state, 'complete');
  return {
    move: { kind: 'complete' },
    chainEvent: 'complete',
    currentStep: Math.max(outcomes.length - 1, 0),
  };
}

/** The indexes of the steps that a chain failure or cancellation turns `cancelled` (pending and running ones). */
export function stepsToCancel(statuses: readonly StepStatus[]): number[] {
  return statuses.flatMap((status, index) => (stepTransition(status, 'cancel') === null ? [] : [index]));
}
