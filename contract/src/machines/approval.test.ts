import { describe, expect, it } from 'vitest';
import { reassignRefusal, remindRefusal } from './approval.js';

const waiting = { mode: 'approval', status: 'awaiting_response' };

describe('remindRefusal', () => {
  it('allows a reminder while an approval waits on someone who has not answered', () => {
    expect(remindRefusal(waiting, [{ status: 'confirmed' }, { status: 'pending' }])).toBeNull();
  });

  it('refuses when everyone has answered or snoozed', () => {
    expect(remindRefusal(waiting, [{ status: 'confirmed' }, { status: 'snoozed' }])).toBe('all_answered');
    expect(remindRefusal(waiting, [])).toBe('all_answered');
  });

  it('refuses when nothing waits for an answer', () => {
    for (const status of ['scheduled', 'executed', 'paused', 'cancelled'])
      expect(remindRefusal({ mode: 'approval', status }, [{ status: 'pending' }])).toBe('not_waiting');
    expect(remindRefusal({ ...waiting, mode: 'webhook' }, [{ status: 'pending' }])).toBe('not_waiting');
  });
});

const action = (status: string, mode = 'approval') => ({ id: 'a1', mode, status: status as never });
const recipient = (status: string) => ({ address: 'ada@example.com', status: status as never });

describe('reassign refusal', () => {
  it('lets a pending or snoozed recipient of a waiting (or not yet sent) gate be reassigned', () => {
    for (const s of ['awaiting_response', 'scheduled', 'resolved'])
      for (const r of ['pending', 'snoozed']) expect(reassignRefusal(action(s), recipient(r))).toBeNull();
  });

  it('refuses, in the order of the table, a webhook, a finished, paused or sending action, an answer, a reassigned one', () => {
    expect(reassignRefusal(action('scheduled', 'webhook'), recipient('pending'))).toMatch(/not an approval/);
    for (const s of ['executed', 'failed', 'cancelled', 'expired'])
      expect(reassignRefusal(action(s), recipient('pending'))).toMatch(/no longer waits/);
    expect(reassignRefusal(action('paused'), recipient('pending'))).toMatch(/paused/);
    expect(reassignRefusal(action('executing'), recipient('pending'))).toMatch(/being sent/);
    expect(reassignRefusal(action('awaiting_response'), recipient('confirmed'))).toMatch(/already answered/);
    expect(reassignRefusal(action('awaiting_response'), recipient('declined'))).toMatch(/already answered/);
    expect(reassignRefusal(action('awaiting_response'), recipient('reassigned'))).toMatch(
      /already reassigned/,
    );
    // The action's state is read first: a finished gate refuses whatever the recipient did.
    expect(reassignRefusal(action('executed'), recipient('confirmed'))).toMatch(/no longer waits/);
    expect(reassignRefusal(action('scheduled', 'webhook'), null)).toMatch(/not an approval/);
    expect(reassignRefusal(action('awaiting_response'), null)).toBeNull();
  });
});
