import { describe, expect, it } from 'vitest';
import {
  type AlertEvent,
  describeEvent,
  EMPTY_STATE,
  evaluateRule,
  matchesRule,
  type RuleState,
  type RuleTerms,
  ruleStateOf,
  SAMPLE_SIZE,
  sendAt,
  storedEvent,
} from './rules.js';

const T0 = Date.parse('2026-11-25T10:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000);

const rule = (over: Partial<RuleTerms> = {}): RuleTerms => ({
  enabled: true,
  events: ['action.failed'],
  filter: null,
  threshold: null,
  lateAfterMs: null,
  groupWaitMs: 2_000,
  repeatEveryMs: 60_000,
  createdAt: at(-3600),
  ...over,
});

const failed = (s: number, over: Partial<AlertEvent> = {}): AlertEvent => ({
  type: 'action.failed',
  at: at(s),
  destination_host: 'api.example.com',
  subject: { type: 'action', id: `a-${s}` },
  details: { name: `job ${s}`, mode: 'webhook', dedup_keys: ['order:1'], attempts: 3, error: 'HTTP 500' },
  ...over,
});

/** Runs the evaluation as the worker would: events as they come, then wake-ups at the times it asks for. */
function run(terms: RuleTerms, steps: { now: number; events?: AlertEvent[] }[]) {
  let state: RuleState = EMPTY_STATE;
  const alerts: { at: number; count: number; first: number; last: number; sample: number }[] = [];
  const wakes: (number | null)[] = [];
  for (const step of steps) {
    const r = evaluateRule(state, terms, step.events ?? [], at(step.now));
    state = r.state;
    if (r.alert)
      alerts.push({
        at: step.now,
        count: r.alert.count,
        first: (r.alert.firstAt.getTime() - T0) / 1000,
        last: (r.alert.lastAt.getTime() - T0) / 1000,
        sample: r.alert.sample.length,
      });
    wakes.push(r.nextAt ? (r.nextAt.getTime() - T0) / 1000 : null);
  }
  return { alerts, wakes, state };
}

describe('matchesRule', () => {
  it('needs the event type, an enabled rule and an event not older than the rule', () => {
    expect(matchesRule(rule(), failed(0))).toBe(true);
    expect(matchesRule(rule({ events: ['approval.expired'] }), failed(0))).toBe(false);
    expect(matchesRule(rule({ enabled: false }), failed(0))).toBe(false);
    expect(matchesRule(rule({ createdAt: at(1) }), failed(0))).toBe(false);
  });

  it('holds every filter field given; an event without the field does not match it', () => {
    expect(matchesRule(rule({ filter: { mode: 'webhook' } }), failed(0))).toBe(true);
    expect(matchesRule(rule({ filter: { mode: 'approval' } }), failed(0))).toBe(false);
    expect(matchesRule(rule({ filter: { destination_host: 'api.example.com' } }), failed(0))).toBe(true);
    expect(matchesRule(rule({ filter: { destination_host: 'other.example.com' } }), failed(0))).toBe(false);
    expect(matchesRule(rule({ filter: { dedup_key: 'order:1' } }), failed(0))).toBe(true);
    expect(matchesRule(rule({ filter: { dedup_key: 'order:2' } }), failed(0))).toBe(false);
    const bulk: AlertEvent = {
      type: 'bulk_operation.completed',
      at: at(0),
      destination_host: null,
      subject: { type: 'bulk_operation', id: 'b' },
      details: {},
    };
    const terms = rule({ events: ['bulk_operation.completed'] });
    expect(matchesRule(terms, bulk)).toBe(true);
    expect(matchesRule({ ...terms, filter: { destination_host: 'api.example.com' } }, bulk)).toBe(false);
    expect(matchesRule({ ...terms, filter: { mode: 'webhook' } }, bulk)).toBe(false);
  });

  it('counts a late delivery only past the rule’s late_after', () => {
    const late = (ms: number): AlertEvent =>
      failed(0, { type: 'delivery.late', details: { lateness_ms: ms } });
    const terms = rule({ events: ['delivery.late'], lateAfterMs: 30_000 });
    expect(matchesRule(terms, late(29_999))).toBe(false);
    expect(matchesRule(terms, late(30_000))).toBe(true);
    expect(matchesRule(terms, failed(0, { type: 'delivery.late', details: {} }))).toBe(false);
  });
});

describe('evaluateRule without a threshold', () => {
  it('groups the events of group_wait into one alert with their count and a sample', () => {
    const burst = Array.from({ length: 8 }, (_, i) => failed(i * 0.1));
    const { alerts, wakes } = run(rule(), [
      { now: 0, events: burst.slice(0, 3) },
      { now: 0.5, events: burst.slice(3) },
      { now: 2 },
    ]);
    expect(wakes).toEqual([2, 2, null]);
    expect(alerts).toEqual([{ at: 2, count: 8, first: 0, last: 0.7, sample: SAMPLE_SIZE }]);
  });

  it('sends nothing before the group’s time and nothing twice', () => {
    const { alerts } = run(rule(), [{ now: 0, events: [failed(0)] }, { now: 1.9 }, { now: 2 }, { now: 3 }]);
    expect(alerts.map((a) => a.at)).toEqual([2]);
  });

  it('while the condition goes on, holds the next alert until repeat_every after the last', () => {
    const { alerts, wakes } = run(rule(), [
      { now: 0, events: [failed(0)] },
      { now: 2 },
      { now: 10, events: [failed(10)] },
      { now: 30, events: [failed(30), failed(30.5)] },
      { now: 62 },
      { now: 200, events: [failed(200)] },
      { now: 202 },
    ]);
    expect(wakes.slice(2, 4)).toEqual([62, 62]);
    expect(alerts).toEqual([
      { at: 2, count: 1, first: 0, last: 0, sample: 1 },
      { at: 62, count: 3, first: 10, last: 30.5, sample: 3 },
      // Quiet for longer than repeat_every: the next group waits only its group_wait.
      { at: 202, count: 1, first: 200, last: 200, sample: 1 },
    ]);
  });

  it('a late evaluation sends what is due at once (a worker was down)', () => {
    const { alerts } = run(rule(), [{ now: 600, events: [failed(0), failed(1)] }]);
    expect(alerts).toEqual([{ at: 600, count: 2, first: 0, last: 1, sample: 2 }]);
  });

  it('a disabled rule drops its group', () => {
    const first = evaluateRule(EMPTY_STATE, rule(), [failed(0)], at(0));
    expect(first.state.pending?.count).toBe(1);
    const off = evaluateRule(first.state, rule({ enabled: false }), [], at(5));
    expect(off).toEqual({ state: { ...first.state, pending: null }, alert: null, nextAt: null });
  });
});

describe('evaluateRule with a threshold', () => {
  const terms = rule({ threshold: { count: 3, windowMs: 10_000 } });

  it('fires only when count events fall within the window', () => {
    const { alerts } = run(terms, [
      { now: 0, events: [failed(0), failed(5)] },
      { now: 12, events: [failed(12)] }, // 0 left the window: two within it
      { now: 14, events: [failed(14)] }, // 5, 12, 14: three
      { now: 16 },
    ]);
    expect(alerts).toEqual([{ at: 16, count: 3, first: 5, last: 14, sample: 3 }]);
  });

  it('never fires below the count', () => {
    const spaced = [0, 6, 12, 18, 24].map((s) => failed(s));
    const { alerts, state } = run(terms, [{ now: 30, events: spaced }, { now: 100 }]);
    expect(alerts).toEqual([]);
    expect(state.pending).toBeNull();
  });

  it('while it goes on, reports only the events after the last message, at most every repeat_every', () => {
    const every = (from: number, to: number) =>
      Array.from({ length: (to - from) / 2 + 1 }, (_, i) => failed(from + i * 2));
    const { alerts } = run(terms, [
      { now: 4, events: every(0, 4) }, // fires at 4
      { now: 6 },
      { now: 40, events: every(6, 40) },
      { now: 66, events: every(42, 66) },
    ]);
    expect(alerts[0]).toEqual({ at: 6, count: 3, first: 0, last: 4, sample: 3 });
    // repeat_every 60 s after the first message (at 6): the events from 6 on, none counted twice.
    expect(alerts[1]).toEqual({ at: 66, count: 31, first: 6, last: 66, sample: SAMPLE_SIZE });
  });
});

describe('sendAt', () => {
  it('is group_wait after the first event, and not before repeat_every after the last message', () => {
    const pending = { count: 1, since: T0, first_at: T0, last_at: T0, sample: [] };
    expect(sendAt({ ...EMPTY_STATE, pending }, rule())).toBe(T0 + 2_000);
    expect(sendAt({ ...EMPTY_STATE, pending, last_sent_at: T0 - 10_000 }, rule())).toBe(T0 + 50_000);
    expect(sendAt(EMPTY_STATE, rule())).toBeNull();
  });
});

describe('ruleStateOf', () => {
  it('reads a stored state, filling what is missing', () => {
    expect(ruleStateOf(null)).toEqual(EMPTY_STATE);
    expect(ruleStateOf({ last_sent_at: 5 })).toEqual({ ...EMPTY_STATE, last_sent_at: 5 });
  });
});

describe('describeEvent', () => {
  it('says what happened in one line', () => {
    expect(describeEvent(storedEvent(failed(0)))).toBe(
      'Action "job 0" (a-0) to api.example.com failed after 3 attempts: HTTP 500',
    );
    expect(
      describeEvent(
        storedEvent(
          failed(0, {
            type: 'delivery.late',
            details: { name: 'n', lateness_ms: 45_000, held_ms: 40_000, held_by: 'paused' },
          }),
        ),
      ),
    ).toBe('Action "n" (a-0) to api.example.com started 45 s late (held 40 s by paused)');
    expect(
      describeEvent({
        type: 'bulk_operation.completed',
        at: at(0).toISOString(),
        destination_host: null,
        subject: { type: 'bulk_operation', id: 'op-1' },
        details: { operation: 'retry', affected: 3, skipped: 1, failed: 0 },
      }),
    ).toBe('Bulk retry op-1 completed: 3 affected, 1 skipped, 0 failed');
    expect(
      describeEvent({
        type: 'destination.circuit_opened',
        at: at(0).toISOString(),
        destination_host: 'api.example.com',
        subject: null,
        details: {},
      }),
    ).toBe('Circuit to api.example.com opened: its deliveries wait');
  });
});
