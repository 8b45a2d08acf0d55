import { describe, expect, it } from 'vitest';
import { canSend, channelStates, unsendableGate } from './channel-availability.js';

const ALL = ['email', 'sms', 'push', 'slack', 'teams'] as const;
const SETTINGS = {
  email: ['SCHED_SMTP_URL'],
  sms: ['SCHED_TWILIO_ACCOUNT_SID', 'SCHED_TWILIO_AUTH_TOKEN', 'SCHED_TWILIO_FROM'],
  push: ['SCHED_VAPID_PUBLIC_KEY'],
  slack: [],
  teams: [],
};

describe('which channels a server can send', () => {
  it('keeps unconfigured channels in the outbox in development, and calls them not configured in production', () => {
    const configured = new Set(['slack', 'teams', 'email'] as const);
    expect(channelStates(ALL, configured, false)).toEqual({
      email: 'configured',
      sms: 'outbox',
      push: 'outbox',
      slack: 'configured',
      teams: 'configured',
    });
    const production = channelStates(ALL, configured, true);
    expect(production.sms).toBe('not_configured');
    expect(canSend(production, 'sms')).toBe(false);
    expect(canSend(production, 'email')).toBe(true);
    expect(canSend(channelStates(ALL, configured, false), 'sms')).toBe(true);
  });

  it('refuses a gate only when none of its channels can be sent, naming each missing setting', () => {
    const production = channelStates(ALL, new Set(['slack', 'teams'] as const), true);
    expect(unsendableGate(['email'], production, SETTINGS)).toBe(
      'no channel of this approval can be sent by this server: email is not configured on this server (set SCHED_SMTP_URL)',
    );
    expect(unsendableGate(['email', 'sms', 'email'], production, SETTINGS)).toMatch(
      /email .*SCHED_SMTP_URL.*; sms .*SCHED_TWILIO_ACCOUNT_SID, SCHED_TWILIO_AUTH_TOKEN, SCHED_TWILIO_FROM/,
    );
    expect(unsendableGate(['email', 'slack'], production, SETTINGS)).toBeNull();
    expect(unsendableGate([], production, SETTINGS)).toBeNull();
    expect(unsendableGate(['email'], channelStates(ALL, new Set(), false), SETTINGS)).toBeNull();
  });
});
