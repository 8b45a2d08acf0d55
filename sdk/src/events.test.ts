import { ACTION_CALLBACK_EVENTS } from '@sched/contract';
import { describe, expect, it } from 'vitest';
import * as sdk from './index.js';

describe('legacy event names (E15)', () => {
  it('exports ActionExecuted, ActionFailed, ActionExpired and ReminderResponded as aliases of the event names', () => {
    const s = sdk as unknown as Record<string, unknown>;
    expect(s.ActionExecuted).toBe('action.executed');
    expect(s.ActionFailed).toBe('action.failed');
    expect(s.ActionExpired).toBe('action.expired');
    expect(s.ReminderResponded).toBe('reminder.responded');
    for (const name of Object.values(s.Events as object)) expect(ACTION_CALLBACK_EVENTS).toContain(name);
  });
});
