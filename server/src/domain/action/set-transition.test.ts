import { describe, expect, it } from 'vitest';
import { EVENT_EFFECTS } from './effects.js';
import { CLAIM, PROMOTE, setTransition } from './set-transition.js';
import { assertTransition } from './states.js';

describe('set-based transitions, read from the state and effects tables', () => {
  it('the promote resolves scheduled attempts and writes nothing else', () => {
    expect(PROMOTE).toMatchObject({
      from: ['scheduled'],
      to: 'resolved',
      next: 'keep',
      error: 'keep',
      lease: 'end',
    });
    expect(assertTransition('scheduled', 'resolve')).toBe(PROMOTE.to);
  });

  it('the claim starts resolved attempts, and scheduled ones through resolve, under a lease', () => {
    expect(CLAIM).toMatchObject({ from: ['scheduled', 'resolved'], to: 'executing', lease: 'take' });
    expect(assertTransition('resolved', 'start')).toBe(CLAIM.to);
    expect(assertTransition(assertTransition('scheduled', 'resolve'), 'start')).toBe(CLAIM.to);
    expect(EVENT_EFFECTS.start.lease).toBe('take');
  });

  it('refuses a walk that emits something, needs a time or leads to several states', () => {
    expect(() => setTransition(['cancel'])).toThrow(/emits/);
    expect(() => setTransition(['deliver_failed_retryable'])).toThrow(/emits/);
    expect(() => setTransition(['confirm', 'snooze'])).toThrow();
    expect(() => setTransition([])).toThrow();
  });
});
