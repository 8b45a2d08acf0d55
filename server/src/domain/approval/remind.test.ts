import { describe, expect, it } from 'vitest';
import { remindRefusal } from './remind.js';

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
