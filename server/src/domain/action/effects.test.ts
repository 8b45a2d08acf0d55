import { describe, expect, it } from 'vitest';
import { EVENT_EFFECTS } from './effects.js';
import { ACTION_EVENTS, ACTION_TRANSITIONS, assertTransition, CANCELLABLE_STATES } from './states.js';

describe('the effects table', () => {
  it('has one row per event of the state table, and an event for every row', () => {
    expect(Object.keys(EVENT_EFFECTS).sort()).toEqual([...ACTION_EVENTS].sort());
    for (const event of ACTION_EVENTS)
      expect(
        ACTION_TRANSITIONS.some((t) => t.event === event),
        event,
      ).toBe(true);
  });

  it('cancel: nothing more is attempted, the reason kept, audited as action.cancel, no callback', () => {
    expect(EVENT_EFFECTS.cancel).toEqual({ next: 'none', error: 'keep', audit: 'action.cancel' });
  });

  it("chain_cancel: from every state the API's cancel leaves, with the reason, audited by the chain", () => {
    for (const from of CANCELLABLE_STATES) expect(assertTransition(from, 'chain_cancel')).toBe('cancelled');
    expect(EVENT_EFFECTS.chain_cancel).toEqual({ next: 'none', error: 'set' });
  });

  it('manual_retry: due again with the error cleared, audited as action.retry', () => {
    expect(EVENT_EFFECTS.manual_retry).toEqual({ next: 'due', error: 'clear', audit: 'action.retry' });
  });

  it('reminder_delivered: the gate waits for answers, not for a time', () => {
    expect(EVENT_EFFECTS.reminder_delivered).toEqual({ next: 'none', error: 'keep' });
  });

  it('pause: the action.paused callback in both modes, a paused timeline entry, audited as action.pause', () => {
    expect(EVENT_EFFECTS.pause).toEqual({
      next: 'keep',
      error: 'keep',
      callback: { webhook: 'action.paused', approval: 'action.paused' },
      timeline: 'paused',
      audit: 'action.pause',
    });
  });

  it.each([
    ['resume', 'due', 'keep'],
    ['resume_skip', 'due', 'clear'],
    ['resume_awaiting', 'none', 'keep'],
    ['resume_expire', 'none', 'set'],
  ] as const)(
    '%s: next %s, error %s, the action.resumed callback, a resumed entry, action.resume',
    (event, next, error) => {
      expect(EVENT_EFFECTS[event]).toEqual({
        next,
        error,
        callback: { webhook: 'action.resumed', approval: 'action.resumed' },
        timeline: 'resumed',
        audit: 'action.resume',
      });
    },
  );

  it('resume_skip: a paused series moves on to a later occurrence, scheduled', () => {
    expect(assertTransition('paused', 'resume_skip')).toBe('scheduled');
  });

  it('reschedule and run_now: due at the new time, audited, no callback', () => {
    expect(EVENT_EFFECTS.reschedule).toEqual({ next: 'due', error: 'keep', audit: 'action.reschedule' });
    expect(EVENT_EFFECTS.run_now).toEqual({ next: 'due', error: 'keep', audit: 'action.run' });
  });

  it('the failures tell the owner and the alert rules; only they carry an alert', () => {
    const alerting = ACTION_EVENTS.filter((e) => EVENT_EFFECTS[e].alert);
    expect(alerting.sort()).toEqual(['condition_fail', 'deliver_failed_permanently', 'threshold_blocked']);
    for (const e of alerting) expect(EVENT_EFFECTS[e].callback).toMatchObject({ webhook: 'action.failed' });
  });
});
