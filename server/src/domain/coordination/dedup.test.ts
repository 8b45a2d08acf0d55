import { describe, expect, it } from 'vitest';
import type { ActionState } from '../action/states.js';
import {
  type CoordinatedAction,
  decideOnCreate,
  decideOnExecute,
  defaultNotMetPolicy,
  normalizeDedupKeys,
  onConditionNotMet,
  validateDedupKeys,
} from './dedup.js';

describe('validateDedupKeys', () => {
  it('accepts absent keys and valid keys', () => {
    expect(validateDedupKeys(undefined)).toEqual({});
    expect(validateDedupKeys([])).toEqual({});
    expect(validateDedupKeys(['user:42', 'invoice.2026-05', 'A_b-C:d.e', 'x'.repeat(255)])).toEqual({});
    expect(validateDedupKeys(Array.from({ length: 10 }, (_, i) => `k${i}`))).toEqual({});
  });

  it('limits the count to 10', () => {
    expect(validateDedupKeys(Array.from({ length: 11 }, (_, i) => `k${i}`))).toEqual({
      dedup_keys: ['At most 10 keys are allowed'],
    });
  });

  it('names each bad key by index', () => {
    expect(validateDedupKeys(['ok', '', 'has space', 'a/b', 'x'.repeat(256), 7, 'ümlaut', 'tab\t'])).toEqual({
      'dedup_keys.1': ['Must not be empty'],
      'dedup_keys.2': ['Only letters, digits and _ : . - are allowed'],
      'dedup_keys.3': ['Only letters, digits and _ : . - are allowed'],
      'dedup_keys.4': ['At most 255 characters'],
      'dedup_keys.5': ['Must be a string'],
      'dedup_keys.6': ['Only letters, digits and _ : . - are allowed'],
      'dedup_keys.7': ['Only letters, digits and _ : . - are allowed'],
    });
  });

  it('refuses a non-array', () => {
    expect(validateDedupKeys('user:42')).toEqual({ dedup_keys: ['Must be an array of strings'] });
  });

  it('collapses repeated keys, keeping order and case', () => {
    expect(normalizeDedupKeys(['b', 'a', 'b', 'A'])).toEqual(['b', 'a', 'A']);
  });
});

const t = (minute: number) => new Date(Date.UTC(2026, 4, 5, 10, minute));
const action = (id: string, status: ActionState, minute = 0): CoordinatedAction => ({
  id,
  status,
  createdAt: t(minute),
});

describe('decideOnCreate', () => {
  it('creates without a rule, whatever exists', () => {
    expect(decideOnCreate(undefined, [action('a', 'scheduled')])).toEqual({ kind: 'create' });
    expect(decideOnCreate(null, [])).toEqual({ kind: 'create' });
  });

  describe('skip_if_exists (rule 1)', () => {
    it('skips when a non-terminal sharing action exists', () => {
      for (const status of ['scheduled', 'resolved', 'executing', 'awaiting_response'] as const) {
        expect(decideOnCreate('skip_if_exists', [action('a', status)])).toEqual({
          kind: 'skip',
          existingId: 'a',
        });
      }
    });
    it('creates when every sharing action is terminal or none exists', () => {
      const terminal = ['executed', 'failed', 'expired', 'cancelled'] as const;
      expect(
        decideOnCreate(
          'skip_if_exists',
          terminal.map((s, i) => action(`a${i}`, s)),
        ),
      ).toEqual({ kind: 'create' });
      expect(decideOnCreate('skip_if_exists', [])).toEqual({ kind: 'create' });
    });
    it('returns the most recently created live action', () => {
      const existing = [
        action('old', 'resolved', 1),
        action('new', 'scheduled', 5),
        action('done', 'executed', 9),
      ];
      expect(decideOnCreate('skip_if_exists', existing)).toEqual({ kind: 'skip', existingId: 'new' });
      expect(
        decideOnCreate('skip_if_exists', [
          { id: 'x', status: 'resolved' },
          { id: 'y', status: 'resolved' },
        ]),
      ).toEqual({
        kind: 'skip',
        existingId: 'x',
      });
    });
  });

  describe.each(['replace_existing', 'cancel_and_replace'] as const)('%s (rule 2)', (rule) => {
    it('cancels every cancellable sharing action', () => {
      const existing = [
        action('s', 'scheduled'),
        action('r', 'resolved'),
        action('w', 'awaiting_response'),
        action('e', 'executed'),
        action('f', 'failed'),
        action('c', 'cancelled'),
        action('x', 'expired'),
      ];
      expect(decideOnCreate(rule, existing)).toEqual({ kind: 'replace', cancelIds: ['s', 'r', 'w'] });
    });
    it('leaves an executing action to finish', () => {
      expect(decideOnCreate(rule, [action('run', 'executing'), action('s', 'scheduled')])).toEqual({
        kind: 'replace',
        cancelIds: ['s'],
      });
      expect(decideOnCreate(rule, [action('run', 'executing')])).toEqual({ kind: 'create' });
    });
    it('simply creates when nothing shares the keys', () => {
      expect(decideOnCreate(rule, [])).toEqual({ kind: 'create' });
    });
  });
});

describe('decideOnExecute', () => {
  const self = { id: 'self', createdAt: t(30) };

  describe.each(['skip_if_previous_pending', 'wait_for_previous'] as const)(
    '%s (rules 3 and 5)',
    (condition) => {
      it('executes with no sharing action', () => {
        expect(decideOnExecute(condition, [], self)).toBe('execute');
      });
      it.each(['scheduled', 'resolved', 'executing', 'awaiting_response'] as const)(
        'is not met while a previous action is %s',
        (status) => {
          expect(
            decideOnExecute(condition, [action('p', 'executed', 1), action('q', status, 10)], self),
          ).toBe('not_met');
        },
      );
      it.each(['executed', 'failed', 'expired', 'cancelled'] as const)(
        'executes when the previous one is %s',
        (status) => {
          expect(decideOnExecute(condition, [action('p', status, 10)], self)).toBe('execute');
        },
      );
      it('ignores actions created later and the action itself', () => {
        expect(
          decideOnExecute(
            condition,
            [action('later', 'scheduled', 40), { ...self, status: 'executing' }],
            self,
          ),
        ).toBe('execute');
      });
      it('breaks a createdAt tie by id so exactly one of two waits', () => {
        const a = action('a', 'resolved', 30);
        const b = action('b', 'resolved', 30);
        expect(decideOnExecute(condition, [b], a)).toBe('execute');
        expect(decideOnExecute(condition, [a], b)).toBe('not_met');
      });
    },
  );

  describe('execute_if_previous_failed / _succeeded (rule 4)', () => {
    const cases: [ActionState, 'execute' | 'not_met', 'execute' | 'not_met'][] = [
      ['failed', 'execute', 'not_met'],
      ['executed', 'not_met', 'execute'],
      ['cancelled', 'not_met', 'not_met'],
      ['expired', 'not_met', 'not_met'],
      ['resolved', 'not_met', 'not_met'],
      ['executing', 'not_met', 'not_met'],
    ];
    it.each(cases)(
      'most recent previous %s: failed-rule %s, succeeded-rule %s',
      (status, onFailed, onSucceeded) => {
        const others = [
          action('older', status === 'failed' ? 'executed' : 'failed', 1),
          action('latest', status, 20),
        ];
        expect(decideOnExecute('execute_if_previous_failed', others, self)).toBe(onFailed);
        expect(decideOnExecute('execute_if_previous_succeeded', others, self)).toBe(onSucceeded);
      },
    );
    it('is not met without any previous action', () => {
      expect(decideOnExecute('execute_if_previous_failed', [], self)).toBe('not_met');
      expect(decideOnExecute('execute_if_previous_succeeded', [action('later', 'executed', 50)], self)).toBe(
        'not_met',
      );
    });
    it('looks only at actions created before this one, whatever the input order', () => {
      const others = [
        action('later', 'failed', 45),
        action('prev', 'executed', 29),
        action('old', 'failed', 2),
      ];
      expect(decideOnExecute('execute_if_previous_succeeded', others, self)).toBe('execute');
      expect(decideOnExecute('execute_if_previous_failed', others, self)).toBe('not_met');
    });
  });
});

describe('on_condition_not_met', () => {
  it('defaults to reschedule for wait_for_previous and cancel otherwise', () => {
    expect(defaultNotMetPolicy('wait_for_previous')).toBe('reschedule');
    expect(defaultNotMetPolicy('skip_if_previous_pending')).toBe('cancel');
    expect(defaultNotMetPolicy('execute_if_previous_failed')).toBe('cancel');
    expect(defaultNotMetPolicy('execute_if_previous_succeeded')).toBe('cancel');
  });
  it('cancels or fails as asked', () => {
    expect(onConditionNotMet('cancel', 0, 10)).toEqual({ kind: 'cancel', reason: 'condition_not_met' });
    expect(onConditionNotMet('fail', 0, 10)).toEqual({ kind: 'fail' });
  });
  it('reschedules up to max_reschedules, then cancels', () => {
    expect(onConditionNotMet('reschedule', 0, 10)).toEqual({ kind: 'reschedule' });
    expect(onConditionNotMet('reschedule', 9, 10)).toEqual({ kind: 'reschedule' });
    expect(onConditionNotMet('reschedule', 10, 10)).toEqual({
      kind: 'cancel',
      reason: 'max_reschedules_reached',
    });
    expect(onConditionNotMet('reschedule', 1, 1)).toEqual({
      kind: 'cancel',
      reason: 'max_reschedules_reached',
    });
  });
});
