import { OPERATOR_EVENT_TYPES } from '@sched/contract';
import { describe, expect, it } from 'vitest';
import {
  definitionErrors,
  exampleEvent,
  lateAfterOf,
  type RuleDefinition,
  smallestLateAfter,
  termsOf,
} from './definition.js';
import { describeEvent, matchesRule, storedEvent } from './rules.js';

const base: RuleDefinition = {
  enabled: true,
  events: ['action.failed'],
  filter: null,
  threshold: null,
  group_wait: null,
  repeat_every: null,
  late_after: null,
};

describe('definitionErrors', () => {
  it('accepts the defaults and durations within bounds', () => {
    expect(definitionErrors(base)).toEqual({});
    expect(
      definitionErrors({
        ...base,
        group_wait: '1h',
        repeat_every: '7d',
        threshold: { count: 2, window: '7d' },
      }),
    ).toEqual({});
  });

  it('refuses durations past their bounds, with dotted paths', () => {
    expect(
      definitionErrors({
        ...base,
        group_wait: '2h',
        repeat_every: '8d',
        threshold: { count: 2, window: '2w' },
      }),
    ).toEqual({
      group_wait: ['must be at most 1h'],
      repeat_every: ['must be at most 7d'],
      'threshold.window': ['must be at most 7d'],
    });
  });

  it('takes late_after only with delivery.late, from 1s to 1d', () => {
    expect(definitionErrors({ ...base, late_after: '30s' })).toEqual({
      late_after: ['applies only with the delivery.late event'],
    });
    const late = { ...base, events: ['delivery.late' as const] };
    expect(definitionErrors({ ...late, late_after: '30s' })).toEqual({});
    expect(definitionErrors({ ...late, late_after: '2d' })).toEqual({
      late_after: ['must be from 1s to 1d'],
    });
  });
});

describe('termsOf', () => {
  it('fills the defaults and scales the waits, not late_after', () => {
    const created = new Date('2026-11-25T10:00:00Z');
    const terms = termsOf(
      { ...base, events: ['delivery.late'], threshold: { count: 3, window: '10m' } },
      created,
      (ms) => ms / 60,
    );
    expect(terms).toMatchObject({
      groupWaitMs: 2_000,
      repeatEveryMs: 60_000,
      threshold: { count: 3, windowMs: 10_000 },
      lateAfterMs: 60_000,
      createdAt: created,
    });
    expect(termsOf(base, created, (ms) => ms).lateAfterMs).toBeNull();
  });
});

describe('late_after', () => {
  it('is in force only for rules watching late deliveries; the smallest decides what is recorded', () => {
    expect(lateAfterOf(base)).toBeNull();
    expect(lateAfterOf({ events: ['delivery.late'], late_after: null })).toBe('1m');
    expect(
      smallestLateAfter([
        base,
        { events: ['delivery.late'], late_after: '45s' },
        { events: ['delivery.late', 'action.failed'], late_after: '10s' },
      ]),
    ).toBe(10_000);
    expect(smallestLateAfter([base])).toBeNull();
  });
});

describe('exampleEvent', () => {
  it('gives every event type an example that its own rule matches and describes', () => {
    const at = new Date('2026-11-25T10:00:00Z');
    for (const type of OPERATOR_EVENT_TYPES) {
      const event = exampleEvent(type, at, { destination_host: 'billing.example.com' });
      const terms = termsOf({ ...base, events: [type] }, new Date(0), (ms) => ms);
      expect(matchesRule(terms, event), type).toBe(true);
      expect(describeEvent(storedEvent(event)).length, type).toBeGreaterThan(10);
    }
  });

  it("names the filter's origin, which a rule on that origin matches", () => {
    const at = new Date('2026-11-25T10:00:00Z');
    const filter = { destination_origin: 'http://127.0.0.1:9000' };
    for (const type of ['action.failed', 'delivery.late', 'destination.circuit_opened'] as const) {
      const event = exampleEvent(type, at, filter);
      expect(event.destination_host, type).toBe('127.0.0.1');
      expect(event.details.origin, type).toBe('http://127.0.0.1:9000');
      const terms = termsOf({ ...base, events: [type], filter }, new Date(0), (ms) => ms);
      expect(matchesRule(terms, event), type).toBe(true);
      const other = termsOf(
        { ...base, events: [type], filter: { destination_origin: 'http://127.0.0.1:9001' } },
        new Date(0),
        (ms) => ms,
      );
      expect(matchesRule(other, event), type).toBe(false);
    }
  });
});
