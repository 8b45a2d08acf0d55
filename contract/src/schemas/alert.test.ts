import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { AlertRuleCreateBody, AlertRuleUpdateBody } from './alert.js';

/** Issues as the 422 body shows them: dotted path -> messages. */
function errorsOf(schema: z.ZodType, value: unknown): Record<string, string[]> {
  const result = schema.safeParse(value);
  if (result.success) return {};
  const errors: Record<string, string[]> = {};
  for (const issue of result.error.issues) {
    const key = issue.path.join('.');
    errors[key] = [...(errors[key] ?? []), issue.message];
  }
  return errors;
}

const rule = {
  name: 'failures',
  events: ['action.failed'],
  channels: [{ type: 'email', to: 'ops@example.com' }],
};

describe('AlertRuleCreateBody', () => {
  it('accepts each channel type', () => {
    const parsed = AlertRuleCreateBody.parse({
      ...rule,
      channels: [
        { type: 'email', to: 'ops@example.com' },
        { type: 'sms', to: '+15551234567' },
        { type: 'slack', channel: '0b9e6f8e-4a5b-4c8d-9e0f-1a2b3c4d5e6f' },
        { type: 'teams', channel: '0b9e6f8e-4a5b-4c8d-9e0f-1a2b3c4d5e6f' },
        { type: 'webhook', url: 'https://hooks.example.com/alerts', secret: 'a-long-enough-secret' },
      ],
    });
    expect(parsed.channels.map((c) => c.type)).toEqual(['email', 'sms', 'slack', 'teams', 'webhook']);
  });

  it('names the field of each mistake with a dotted path', () => {
    expect(
      Object.keys(
        errorsOf(AlertRuleCreateBody, {
          name: '',
          events: ['action.failed', 'action.exploded'],
          threshold: { count: 0, window: 'soon' },
          channels: [{ type: 'email', to: 'not-an-address' }, { type: 'pager', to: 'x' }, { type: 'sms' }],
          group_wait: '2 minutes',
        }),
      ).sort(),
    ).toEqual([
      'channels.0.to',
      'channels.1.type',
      'channels.2.to',
      'events.1',
      'group_wait',
      'name',
      'threshold.count',
      'threshold.window',
    ]);
  });

  it('refuses repeated events, no channel and unknown fields', () => {
    expect(
      Object.keys(errorsOf(AlertRuleCreateBody, { ...rule, events: ['action.failed', 'action.failed'] })),
    ).toEqual(['events']);
    expect(Object.keys(errorsOf(AlertRuleCreateBody, { ...rule, channels: [] }))).toEqual(['channels']);
    expect(Object.keys(errorsOf(AlertRuleCreateBody, { ...rule, threshhold: { count: 2 } }))).toEqual(['']);
  });

  it('lets an update clear the optional fields with null', () => {
    expect(AlertRuleUpdateBody.parse({ threshold: null, filter: null, group_wait: null })).toEqual({
      threshold: null,
      filter: null,
      group_wait: null,
    });
    expect(Object.keys(errorsOf(AlertRuleUpdateBody, { name: null }))).toEqual(['name']);
  });
});
