import { describe, expect, it } from 'vitest';
import {
  channelAllowance,
  effectiveMaxAttempts,
  isPlan,
  monthPeriod,
  PLAN_LIMITS,
  planLimits,
} from './plans.js';

describe('plan table', () => {
  it('holds the spec values', () => {
    expect(planLimits('free')).toMatchObject({
      actionsPerMonth: 100,
      emailsPerMonth: 100,
      pushMessagesPerMonth: 100,
      maxAttempts: 3,
      horizonDays: 30,
      retentionDays: 30,
      templates: 3,
      chains: false,
      slackTeams: false,
    });
    expect(planLimits('pro')).toMatchObject({
      actionsPerMonth: null,
      emailsPerMonth: 5_000,
      pushMessagesPerMonth: 5_000,
      maxAttempts: 10,
      horizonDays: 365,
      retentionDays: 365,
      templates: 25,
      chains: false,
      slackTeams: false,
    });
    expect(planLimits('business')).toMatchObject({
      actionsPerMonth: null,
      emailsPerMonth: 50_000,
      chatMessagesPerMonth: 20_000,
      pushMessagesPerMonth: 50_000,
      maxAttempts: 20,
      horizonDays: 365,
      retentionDays: 365,
      templates: 100,
      chains: true,
      slackTeams: true,
    });
  });

  it('holds our choices for the rows the spec leaves open', () => {
    expect([
      PLAN_LIMITS.free.smsPerMonth,
      PLAN_LIMITS.pro.smsPerMonth,
      PLAN_LIMITS.business.smsPerMonth,
    ]).toEqual([50, 200, 1_000]);
    expect(PLAN_LIMITS.free.chatMessagesPerMonth).toBe(0);
    expect(PLAN_LIMITS.pro.chatMessagesPerMonth).toBe(0);
    expect([
      PLAN_LIMITS.free.maxRecipients,
      PLAN_LIMITS.pro.maxRecipients,
      PLAN_LIMITS.business.maxRecipients,
    ]).toEqual([3, 10, 50]);
    expect(PLAN_LIMITS.business.aiSuggestionsPerMonth).toBe(1_000);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(PLAN_LIMITS)).toBe(true);
    expect(Object.isFrozen(PLAN_LIMITS.free)).toBe(true);
  });

  it('recognises plan names', () => {
    expect(isPlan('pro')).toBe(true);
    expect(isPlan('enterprise')).toBe(false);
  });
});

describe('monthPeriod', () => {
  it('is the UTC calendar month', () => {
    const period = monthPeriod(new Date('2026-05-17T13:45:00.000Z'));
    expect(period).toEqual({
      year: 2026,
      month: 5,
      month_name: 'May',
      start: new Date('2026-05-01T00:00:00.000Z'),
      end: new Date('2026-06-01T00:00:00.000Z'),
    });
  });

  it('uses UTC at the edges, not local time', () => {
    expect(monthPeriod(new Date('2026-05-31T23:59:59.999Z')).month).toBe(5);
    expect(monthPeriod(new Date('2026-06-01T00:00:00.000Z')).month_name).toBe('June');
    // 2026-05-01 01:00 in Berlin is still April in UTC.
    expect(monthPeriod(new Date('2026-04-30T23:00:00.000Z')).month).toBe(4);
  });

  it('rolls over the year', () => {
    const december = monthPeriod(new Date('2026-12-31T12:00:00.000Z'));
    expect(december.month_name).toBe('December');
    expect(december.end).toEqual(new Date('2027-01-01T00:00:00.000Z'));
    expect(monthPeriod(new Date('2027-01-01T00:00:00.000Z')).start).toEqual(
      new Date('2027-01-01T00:00:00.000Z'),
    );
  });
});

describe('effectiveMaxAttempts', () => {
  it('defaults to 5, capped by the plan', () => {
    expect(effectiveMaxAttempts(undefined, 'free')).toEqual({ ok: true, maxAttempts: 3 });
    expect(effectiveMaxAttempts(null, 'pro')).toEqual({ ok: true, maxAttempts: 5 });
    expect(effectiveMaxAttempts(undefined, 'business')).toEqual({ ok: true, maxAttempts: 5 });
  });

  it('keeps a requested value within the cap', () => {
    expect(effectiveMaxAttempts(1, 'free')).toEqual({ ok: true, maxAttempts: 1 });
    expect(effectiveMaxAttempts(3, 'free')).toEqual({ ok: true, maxAttempts: 3 });
    expect(effectiveMaxAttempts(10, 'pro')).toEqual({ ok: true, maxAttempts: 10 });
    expect(effectiveMaxAttempts(20, 'business')).toEqual({ ok: true, maxAttempts: 20 });
  });

  it('refuses a value above the plan cap on max_attempts', () => {
    expect(effectiveMaxAttempts(4, 'free')).toEqual({
      ok: false,
      field: 'max_attempts',
      message: 'Must be at most 3 on the free plan',
    });
    expect(effectiveMaxAttempts(11, 'pro')).toMatchObject({ ok: false, field: 'max_attempts' });
  });
});

describe('channelAllowance', () => {
  it('meters every channel, push included, from the plan table', () => {
    expect(channelAllowance('free', 'push')).toEqual({
      metric: 'push_messages',
      limit: 100,
      label: 'push notifications',
    });
    expect(channelAllowance('business', 'slack')).toEqual(channelAllowance('business', 'teams'));
    expect(channelAllowance('business', 'teams').limit).toBe(20_000);
    expect(channelAllowance('pro', 'email')).toMatchObject({ metric: 'emails', limit: 5_000 });
    expect(channelAllowance('pro', 'sms')).toMatchObject({ metric: 'sms', limit: 200 });
  });
});
