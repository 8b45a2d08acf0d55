import { describe, expect, it } from 'vitest';
import {
  ACTION_EVENTS,
  ACTION_STATES,
  ACTION_TRANSITIONS,
  type ActionEvent,
  type ActionState,
  assertTransition,
  CANCELLABLE_STATES,
  InvalidTransitionError,
  isCancellable,
  isPausable,
  isTerminal,
  LIVE_STATES,
  PAUSABLE_STATES,
  PENDING_STATES,
  parseActionStatus,
  phaseOf,
  TERMINAL_STATES,
} from './states.js';

const allows = (from: ActionState, event: ActionEvent) => {
  try {
    assertTransition(from, event);
    return true;
  } catch {
    return false;
  }
};

// Written out independently of the table so a wrong row in the table fails here.
const SPEC_ROWS: [ActionState, ActionEvent, ActionState][] = [
  ['scheduled', 'resolve', 'resolved'],
  ['scheduled', 'cancel', 'cancelled'],
  ['resolved', 'start', 'executing'],
  ['resolved', 'cancel', 'cancelled'],
  ['executing', 'deliver_succeeded', 'executed'],
  ['executing', 'deliver_failed_permanently', 'failed'],
  ['executing', 'deliver_failed_retryable', 'resolved'],
  ['executing', 'reminder_delivered', 'awaiting_response'],
  ['awaiting_response', 'confirm', 'executed'],
  ['awaiting_response', 'decline', 'failed'],
  ['awaiting_response', 'snooze', 'scheduled'],
  ['awaiting_response', 'timeout_expire', 'expired'],
  ['awaiting_response', 'cancel', 'cancelled'],
  ['failed', 'manual_retry', 'resolved'],
];
const EXTENSION_ROWS: [ActionState, ActionEvent, ActionState][] = [
  ['awaiting_response', 'timeout_cancel', 'cancelled'],
  ['awaiting_response', 'timeout_approve', 'executed'],
  ['executing', 'recur', 'resolved'],
  ['executing', 'lease_expired', 'resolved'],
  ['resolved', 'condition_cancel', 'cancelled'],
  ['resolved', 'condition_fail', 'failed'],
  ['resolved', 'condition_reschedule', 'resolved'],
  ['scheduled', 'confirm', 'executed'],
  ['scheduled', 'decline', 'failed'],
  ['scheduled', 'snooze', 'scheduled'],
  ['resolved', 'confirm', 'executed'],
  ['resolved', 'decline', 'failed'],
  ['resolved', 'snooze', 'scheduled'],
  ['scheduled', 'pause', 'paused'],
  ['resolved', 'pause', 'paused'],
  ['awaiting_response', 'pause', 'paused'],
  ['paused', 'resume', 'scheduled'],
  ['paused', 'resume_skip', 'scheduled'],
  ['paused', 'resume_awaiting', 'awaiting_response'],
  ['paused', 'resume_expire', 'expired'],
  ['paused', 'cancel', 'cancelled'],
  ['scheduled', 'chain_cancel', 'cancelled'],
  ['resolved', 'chain_cancel', 'cancelled'],
  ['awaiting_response', 'chain_cancel', 'cancelled'],
  ['paused', 'chain_cancel', 'cancelled'],
  ['resolved', 'threshold_skip', 'resolved'],
  ['awaiting_response', 'recur', 'resolved'],
  ['scheduled', 'recur', 'resolved'],
  ['resolved', 'recur', 'resolved'],
  ['resolved', 'threshold_blocked', 'failed'],
  ['scheduled', 'reschedule', 'scheduled'],
  ['resolved', 'reschedule', 'scheduled'],
  ['paused', 'reschedule', 'paused'],
  ['scheduled', 'run_now', 'resolved'],
  ['resolved', 'run_now', 'resolved'],
  ['paused', 'run_now', 'resolved'],
];
const ALL_ROWS = [...SPEC_ROWS, ...EXTENSION_ROWS];

describe('action state table', () => {
  it.each(ALL_ROWS)('%s --%s--> %s', (from, event, to) => {
    expect(assertTransition(from, event)).toBe(to);
  });

  it('holds exactly these rows', () => {
    const rows = ACTION_TRANSITIONS.map((t) => [t.from, t.event, t.to]);
    expect(rows).toHaveLength(ALL_ROWS.length);
    expect(rows).toEqual(expect.arrayContaining(ALL_ROWS));
  });

  it('forbids every other (state, event) pair', () => {
    const allowed = new Set(ALL_ROWS.map(([from, event]) => `${from}:${event}`));
    for (const from of ACTION_STATES) {
      for (const event of ACTION_EVENTS) {
        if (allowed.has(`${from}:${event}`)) continue;
        expect(allows(from, event), `${from}:${event}`).toBe(false);
      }
    }
  });

  it.each<[ActionState, ActionEvent]>([
    ['executing', 'cancel'],
    ['executed', 'cancel'],
    ['expired', 'cancel'],
    ['cancelled', 'resolve'],
    ['executed', 'manual_retry'],
    ['scheduled', 'start'],
    ['resolved', 'deliver_succeeded'],
    ['awaiting_response', 'start'],
  ])('refuses %s --%s with a typed error', (from, event) => {
    let thrown: unknown;
    try {
      assertTransition(from, event);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(InvalidTransitionError);
    expect(thrown).toMatchObject({ from, event, name: 'InvalidTransitionError' });
  });

  it('gives terminal states no way out except the manual retry of failed', () => {
    for (const state of TERMINAL_STATES) {
      const exits = ACTION_TRANSITIONS.filter((t) => t.from === state).map((t) => t.event);
      expect(exits).toEqual(state === 'failed' ? ['manual_retry'] : []);
    }
  });

  it('is frozen', () => {
    expect(Object.isFrozen(ACTION_STATES)).toBe(true);
    expect(Object.isFrozen(ACTION_TRANSITIONS)).toBe(true);
    expect(Object.isFrozen(ACTION_TRANSITIONS[0])).toBe(true);
  });
});

describe('state sets', () => {
  it('partitions the states into terminal and live', () => {
    expect([...TERMINAL_STATES]).toEqual(['executed', 'failed', 'expired', 'cancelled']);
    expect([...LIVE_STATES]).toEqual(['scheduled', 'resolved', 'executing', 'awaiting_response', 'paused']);
    expect(isTerminal('failed')).toBe(true);
    expect(isTerminal('executing')).toBe(false);
  });

  it('offers cancellation exactly where a cancel transition exists', () => {
    expect([...CANCELLABLE_STATES]).toEqual(['scheduled', 'resolved', 'awaiting_response', 'paused']);
    for (const state of ACTION_STATES) expect(isCancellable(state)).toBe(allows(state, 'cancel'));
  });

  it('offers pause where a pause transition exists: never while a request is on the wire, never twice', () => {
    expect([...PAUSABLE_STATES]).toEqual(['scheduled', 'resolved', 'awaiting_response']);
    for (const state of ACTION_STATES) expect(isPausable(state)).toBe(allows(state, 'pause'));
    expect(allows('paused', 'pause')).toBe(false);
    expect(allows('executing', 'pause')).toBe(false);
  });
});

describe('legacy status names', () => {
  it('maps pending_resolution to scheduled', () => {
    expect(parseActionStatus('pending_resolution')).toBe('scheduled');
    expect(parseActionStatus('scheduled')).toBe('scheduled');
    expect(parseActionStatus('executed')).toBe('executed');
  });

  it('rejects unknown names', () => {
    expect(parseActionStatus('done')).toBeNull();
    expect(parseActionStatus('toString')).toBeNull();
    expect(parseActionStatus('SCHEDULED')).toBeNull();
  });
});

describe('phases', () => {
  it('keeps the promote, the claim and a lost lease inside one phase, so they rewrite no index entry', () => {
    for (const t of ACTION_TRANSITIONS.filter((x) => ['resolve', 'start', 'lease_expired'].includes(x.event)))
      expect(phaseOf(t.to), `${t.from} -${t.event}-> ${t.to}`).toBe(phaseOf(t.from));
    expect([...PENDING_STATES]).toEqual(['scheduled', 'resolved', 'executing']);
  });

  it('changes phase on every outcome that ends an attempt for good, and keeps the live set apart', () => {
    for (const state of TERMINAL_STATES) expect(phaseOf(state)).toBe(state);
    for (const t of ACTION_TRANSITIONS.filter((x) => isTerminal(x.to) && !isTerminal(x.from)))
      expect(phaseOf(t.to)).not.toBe(phaseOf(t.from));
    const livePhases = new Set(LIVE_STATES.map(phaseOf));
    for (const state of TERMINAL_STATES) expect(livePhases.has(phaseOf(state))).toBe(false);
  });
});
