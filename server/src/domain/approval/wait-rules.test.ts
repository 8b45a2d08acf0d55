import { describe, expect, it } from 'vitest';
import { decisionOf, waitIsOver } from './wait-rules.js';

describe('what a held wait answers', () => {
  it('reads a gate decision from the state: executed is a confirm, failed a decline', () => {
    expect(decisionOf('executed')).toBe('confirmed');
    expect(decisionOf('failed')).toBe('declined');
    expect(decisionOf('expired')).toBe('expired');
    expect(decisionOf('cancelled')).toBe('cancelled');
    for (const live of ['scheduled', 'resolved', 'executing', 'awaiting_response', 'paused'] as const)
      expect(decisionOf(live)).toBeNull();
  });

  it('a gate is over when decided; a webhook, and for=terminal, when the action ended', () => {
    expect(waitIsOver('awaiting_response', true, 'decision')).toBe(false);
    expect(waitIsOver('executed', true, 'decision')).toBe(true);
    expect(waitIsOver('resolved', false, 'decision')).toBe(false);
    expect(waitIsOver('executed', false, 'decision')).toBe(true);
    expect(waitIsOver('paused', true, 'terminal')).toBe(false);
    expect(waitIsOver('cancelled', true, 'terminal')).toBe(true);
  });
});
