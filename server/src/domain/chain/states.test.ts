import {
  CHAIN_STATES,
  type ChainState,
  STEP_OUTCOMES,
  STEP_STATUSES,
  type StepOutcome,
  type StepStatus,
  type StepType,
} from '@sched/contract';
import { describe, expect, it } from 'vitest';
import {
  assertChainTransition,
  assertStepTransition,
  CHAIN_EVENTS,
  CHAIN_TRANSITIONS,
  type ChainEvent,
  chainTransition,
  decideNext,
  InvalidChainTransitionError,
  isChainCancellable,
  isChainTerminal,
  isFailureOutcome,
  type StepEvent,
  STEP_EVENTS,
  STEP_TRANSITIONS,
  type StepSettlement,
  settleStep,
  stepsToCancel,
  stepTransition,
  stepTypeAlias,
} from './states.js';

// Written out independently of the tables so that a wrong row fails here.
const CHAIN_ROWS: [ChainState, ChainEvent, ChainState][] = [
  ['pending', 'start', 'running'],
  ['running', 'complete', 'completed'],
  ['pending', 'fail', 'failed'],
  ['running', 'fail', 'failed'],
  ['pending', 'cancel', 'cancelled'],
  ['running', 'cancel', 'cancelled'],
];
const STEP_ROWS: [StepStatus, StepEvent, StepStatus][] = [
  ['pending', 'start', 'running'],
  ['pending', 'condition_false', 'skipped'],
  ['pending', 'fail', 'failed'],
  ['pending', 'fail_skipped', 'skipped'],
  ['pending', 'cancel', 'cancelled'],
  ['running', 'succeed', 'completed'],
  ['running', 'fail', 'failed'],
  ['running', 'fail_skipped', 'skipped'],
  ['running', 'cancel', 'cancelled'],
];

describe('chain state table', () => {
  it.each(CHAIN_ROWS)('%s --%s--> %s', (from, event, to) => {
    expect(chainTransition(from, event)).toBe(to);
    expect(assertChainTransition(from, event)).toBe(to);
  });

  it('holds exactly these rows and forbids every other pair', () => {
    expect(CHAIN_TRANSITIONS.map((t) => [t.from, t.event, t.to])).toEqual(expect.arrayContaining(CHAIN_ROWS));
    expect(CHAIN_TRANSITIONS).toHaveLength(CHAIN_ROWS.length);
    const allowed = new Set(CHAIN_ROWS.map(([from, event]) => `${from}:${event}`));
    for (const from of CHAIN_STATES) {
      for (const event of CHAIN_EVENTS) {
        if (allowed.has(`${from}:${event}`)) continue;
        expect(chainTransition(from, event), `${from}:${event}`).toBeNull();
        expect(() => assertChainTransition(from, event)).toThrow(InvalidChainTransitionError);
      }
    }
  });

  it('has no way out of a terminal state and cancels only pending or running chains', () => {
    for (const state of CHAIN_STATES) {
      const exits = CHAIN_EVENTS.filter((e) => chainTransition(state, e) !== null);
      expect(isChainTerminal(state)).toBe(exits.length === 0);
      expect(isChainCancellable(state)).toBe(chainTransition(state, 'cancel') !== null);
    }
    expect(CHAIN_STATES.filter(isChainCancellable)).toEqual(['pending', 'running']);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(CHAIN_TRANSITIONS)).toBe(true);
    expect(Object.isFrozen(CHAIN_TRANSITIONS[0])).toBe(true);
  });
});

describe('step state table', () => {
  it.each(STEP_ROWS)('%s --%s--> %s', (from, event, to) => {
    expect(stepTransition(from, event)).toBe(to);
    expect(assertStepTransition(from, event)).toBe(to);
  });

  it('holds exactly these rows and forbids every other pair', () => {
    expect(STEP_TRANSITIONS.map((t) => [t.from, t.event, t.to])).toEqual(expect.arrayContaining(STEP_ROWS));
    expect(STEP_TRANSITIONS).toHaveLength(STEP_ROWS.length);
    const allowed = new Set(STEP_ROWS.map(([from, event]) => `${from}:${event}`));
    for (const from of STEP_STATUSES) {
      for (const event of STEP_EVENTS) {
        if (allowed.has(`${from}:${event}`)) continue;
        expect(stepTransition(from, event), `${from}:${event}`).toBeNull();
      }
    }
  });

  it('leaves settled steps alone when the chain is cancelled', () => {
    expect(stepsToCancel(['completed', 'skipped', 'failed', 'running', 'pending', 'pending'])).toEqual([
      3, 4, 5,
    ]);
  });
});

describe('stepTypeAlias', () => {
  it.each([
    ['http_call', 'webhook'],
    ['gated', 'approval'],
    ['delay', 'wait'],
    ['webhook', 'webhook'],
    ['approval', 'approval'],
    ['wait', 'wait'],
  ] as const)('%s -> %s', (type, alias) => {
    expect(stepTypeAlias(type)).toBe(alias);
  });
});

describe('settleStep', () => {
  const cases: [StepType, StepSettlement, StepOutcome, 'success' | 'failure' | 'skip'][] = [
    ['webhook', { kind: 'http_succeeded' }, 'executed', 'success'],
    ['webhook', { kind: 'http_failed', error: '500 after 5 attempts' }, 'failed', 'failure'],
    ['webhook', { kind: 'condition_false' }, 'skipped', 'skip'],
    ['webhook', { kind: 'not_run', error: '{{input.x}} has no value' }, 'failed', 'failure'],
    ['approval', { kind: 'gate_confirmed' }, 'confirmed', 'success'],
    ['approval', { kind: 'gate_declined' }, 'declined', 'failure'],
    ['approval', { kind: 'gate_timed_out', onTimeout: 'approve' }, 'confirmed', 'success'],
    ['approval', { kind: 'gate_timed_out', onTimeout: 'expire' }, 'declined', 'failure'],
    ['approval', { kind: 'gate_timed_out', onTimeout: 'cancel' }, 'declined', 'failure'],
    ['approval', { kind: 'condition_false' }, 'skipped', 'skip'],
    ['approval', { kind: 'not_run', error: 'no recipient' }, 'failed', 'failure'],
    ['wait', { kind: 'delay_elapsed' }, 'executed', 'success'],
    ['wait', { kind: 'condition_false' }, 'skipped', 'skip'],
    ['wait', { kind: 'not_run', error: 'condition unreadable' }, 'failed', 'failure'],
  ];

  it.each(cases)('%s %j -> %s', (type, settlement, outcome, kind) => {
    expect(STEP_OUTCOMES[type] as readonly string[]).toContain(outcome);
    const failChain = settleStep(type, settlement, 'fail_chain');
    const skipStep = settleStep(type, settlement, 'skip_step');
    expect(failChain.outcome).toBe(outcome);
    // skip_step changes only the view: the outcome stays, so later conditions can branch on it.
    expect(skipStep.outcome).toBe(outcome);
    if (kind === 'success') {
      expect([failChain.event, skipStep.event, failChain.error]).toEqual(['succeed', 'succeed', null]);
      expect(stepTransition('running', failChain.event)).toBe('completed');
    } else if (kind === 'skip') {
      expect([failChain.event, skipStep.event]).toEqual(['condition_false', 'condition_false']);
      expect(stepTransition('pending', failChain.event)).toBe('skipped');
    } else {
      expect([failChain.event, skipStep.event]).toEqual(['fail', 'fail_skipped']);
      expect(stepTransition('running', failChain.event)).toBe('failed');
      expect(stepTransition('running', skipStep.event)).toBe('skipped');
      expect(isFailureOutcome(failChain.outcome)).toBe(true);
      expect(failChain.error).toEqual(expect.any(String));
    }
  });

  it('names the timeout in the error of a timed-out gate', () => {
    expect(settleStep('approval', { kind: 'gate_timed_out', onTimeout: 'expire' }, 'fail_chain').error).toBe(
      'no answer before the gate timed out (on_timeout: expire)',
    );
  });

  it('refuses a settlement that the step type cannot have', () => {
    expect(() => settleStep('wait', { kind: 'http_succeeded' }, 'fail_chain')).toThrow(
      InvalidChainTransitionError,
    );
    expect(() => settleStep('webhook', { kind: 'gate_confirmed' }, 'fail_chain')).toThrow(
      InvalidChainTransitionError,
    );
  });
});

describe('decideNext', () => {
  it('starts a pending chain at its first step', () => {
    expect(decideNext('pending', 'fail_chain', [null, null, null])).toEqual({
      move: { kind: 'run_step', step: 0 },
      chainEvent: 'start',
      currentStep: 0,
    });
  });

  it('runs the first unsettled step of a running chain, past skipped ones', () => {
    expect(decideNext('running', 'fail_chain', ['executed', 'skipped', null])).toEqual({
      move: { kind: 'run_step', step: 2 },
      chainEvent: null,
      currentStep: 2,
    });
  });

  it('completes when every step settled without a failure', () => {
    expect(decideNext('running', 'fail_chain', ['executed', 'confirmed', 'skipped'])).toEqual({
      move: { kind: 'complete' },
      chainEvent: 'complete',
      currentStep: 2,
    });
  });

  it('fails at the first failed step under fail_chain', () => {
    expect(decideNext('running', 'fail_chain', ['executed', 'declined', null])).toEqual({
      move: { kind: 'fail', step: 1 },
      chainEvent: 'fail',
      currentStep: 1,
    });
    expect(decideNext('running', 'fail_chain', ['failed', null])).toMatchObject({
      move: { kind: 'fail', step: 0 },
    });
  });

  it('continues past failures under skip_step, and completes after a failed last step', () => {
    expect(decideNext('running', 'skip_step', ['failed', null])).toMatchObject({
      move: { kind: 'run_step', step: 1 },
    });
    expect(decideNext('running', 'skip_step', ['executed', 'declined'])).toMatchObject({
      move: { kind: 'complete' },
    });
  });

  it('refuses to move a terminal chain', () => {
    for (const state of ['completed', 'failed', 'cancelled'] as const) {
      expect(() => decideNext(state, 'fail_chain', [null, null])).toThrow(InvalidChainTransitionError);
    }
  });

  it('agrees with the chain table on every move', () => {
    const outcomes: (StepOutcome | null)[][] = [
      [null, null],
      ['executed', null],
      ['failed', null],
      ['executed', 'executed'],
      ['skipped', 'declined'],
    ];
    for (const state of ['pending', 'running'] as const) {
      for (const handling of ['fail_chain', 'skip_step'] as const) {
        for (const list of outcomes) {
          let decision: ReturnType<typeof decideNext>;
          try {
            decision = decideNext(state, handling, list);
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidChainTransitionError);
            continue;
          }
          if (decision.chainEvent !== null)
            expect(chainTransition(state, decision.chainEvent)).not.toBeNull();
        }
      }
    }
  });
});
