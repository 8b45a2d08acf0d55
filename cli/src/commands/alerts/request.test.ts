import { AlertRuleCreateBody } from '@sched/contract';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../runtime.js';
import { createBody, parseThreshold, updateBody } from './request.js';

describe('sched alerts request builders', () => {
  it('turns the options into a create body the contract accepts', () => {
    const body = createBody({
      name: 'billing down',
      event: ['action.failed', 'destination.circuit_opened'],
      email: ['oncall@example.com'],
      webhook: ['https://hooks.example.com/alerts'],
      secret: 'a-long-enough-secret',
      host: 'billing.example.com',
      threshold: '5/10m',
      groupWait: '30s',
    });
    expect(body).toEqual({
      name: 'billing down',
      events: ['action.failed', 'destination.circuit_opened'],
      channels: [
        { type: 'email', to: 'oncall@example.com' },
        { type: 'webhook', url: 'https://hooks.example.com/alerts', secret: 'a-long-enough-secret' },
      ],
      filter: { destination_host: 'billing.example.com' },
      threshold: { count: 5, window: '10m' },
      group_wait: '30s',
    });
    expect(AlertRuleCreateBody.safeParse(body).success).toBe(true);
  });

  it('filters by origin with --origin', () => {
    const body = createBody({
      name: 'one port down',
      event: ['destination.circuit_opened'],
      email: ['oncall@example.com'],
      origin: 'http://127.0.0.1:9000',
    });
    expect(body.filter).toEqual({ destination_origin: 'http://127.0.0.1:9000' });
    expect(AlertRuleCreateBody.safeParse(body).success).toBe(true);
  });

  it('sends only what an update names, and null for what it clears', () => {
    expect(updateBody({ disabled: true, clear: ['threshold', 'filter'] })).toEqual({
      enabled: false,
      threshold: null,
      filter: null,
    });
    expect(() => updateBody({})).toThrow(UsageError);
    expect(() => updateBody({ clear: ['name'] })).toThrow(UsageError);
  });

  it('refuses a malformed threshold and a secret without a webhook', () => {
    expect(parseThreshold('3/1h')).toEqual({ count: 3, window: '1h' });
    expect(() => parseThreshold('3 in 1h')).toThrow(UsageError);
    expect(() => createBody({ name: 'x', email: ['a@example.com'], secret: 'a-long-enough-secret' })).toThrow(
      UsageError,
    );
  });
});
