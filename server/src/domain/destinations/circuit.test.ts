import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  admit,
  CIRCUIT_TRANSITIONS,
  type Circuit,
  type CircuitRecord,
  type CircuitSignal,
  CLOSED_CIRCUIT,
  circuitAt,
  circuitOf,
  countFailure,
  judge,
  OPEN_FOR_CAP_MS,
  openForMs,
  scanLimit,
  settleProbe,
  signalOf,
  step,
} from './circuit.js';

const T0 = new Date('2026-11-25T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const defaults = circuitOf(null);

/** Counts `n` failures starting at `from`, one a second, judging the window each time with every attempt failed. */
function failTimes(record: CircuitRecord, circuit: Circuit, n: number, from = 0) {
  let r = record;
  let opened = null;
  for (let i = 0; i < n; i += 1) {
    const now = at(from + i * 1_000);
    const counted = countFailure(r, circuit, now, now);
    r = counted.record;
    if (counted.check) {
      const s = judge(r, circuit, now, {
        attempts: r.windowFailures,
        failures: r.windowFailures,
        more: false,
      });
      r = s.record;
      if (s.transition) opened = s.transition;
    }
  }
  return { record: r, opened };
}

describe('circuit: the transition table', () => {
  it('declares each (state, event) pair once, and every state can be left', () => {
    const pairs = CIRCUIT_TRANSITIONS.map((t) => `${t.from}:${t.event}`);
    expect(new Set(pairs).size).toBe(pairs.length);
    for (const s of ['closed', 'open', 'half_open', 'disabled'])
      expect(CIRCUIT_TRANSITIONS.some((t) => t.from === s)).toBe(true);
  });

  it('records an event for an opening, a closing and a disabling, never for half-open or a reopening', () => {
    const notices = new Map(CIRCUIT_TRANSITIONS.map((t) => [`${t.from}:${t.event}`, t.notice]));
    expect(notices.get('closed:trip')).toBe('destination.circuit_opened');
    expect(notices.get('half_open:probe_succeeded')).toBe('destination.circuit_closed');
    expect(notices.get('half_open:give_up')).toBe('destination.disabled');
    expect(notices.get('disabled:enable')).toBe('destination.circuit_closed');
    expect(notices.get('open:probe_due')).toBeNull();
    expect(notices.get('half_open:probe_failed')).toBeNull();
  });

  it('refuses a change the table does not have', () => {
    expect(step(CLOSED_CIRCUIT, 'enable', defaults, T0)).toBeNull();
    expect(step(CLOSED_CIRCUIT, 'probe_succeeded', defaults, T0)).toBeNull();
    const disabled = { ...CLOSED_CIRCUIT, state: 'disabled' as const, openedAt: T0 };
    expect(step(disabled, 'probe_due', defaults, T0)).toBeNull();
  });
});

describe('circuit: defaults and open_for', () => {
  it('fills in the default settings', () => {
    expect(defaults).toEqual({
      enabled: true,
      minRequests: 10,
      windowMs: 300_000,
      failureRate: 0.7,
      openForMs: 60_000,
      disableAfterMs: 5 * 86_400_000,
    });
    expect(circuitOf({ open_for: '2s', min_requests: 5 })).toMatchObject({
      openForMs: 2_000,
      minRequests: 5,
    });
  });

  it('doubles open_for with each failed probe, up to an hour (or open_for when longer)', () => {
    expect([0, 1, 2, 5, 6, 7, 50].map((n) => openForMs(defaults, n))).toEqual([
      60_000,
      120_000,
      240_000,
      1_920_000,
      OPEN_FOR_CAP_MS,
      OPEN_FOR_CAP_MS,
      OPEN_FOR_CAP_MS,
    ]);
    const long = circuitOf({ open_for: '2h' });
    expect(openForMs(long, 3)).toBe(7_200_000);
  });
});

describe('circuit: closed to open', () => {
  it('opens at min_requests failures when every attempt failed, not before', () => {
    const nine = failTimes(CLOSED_CIRCUIT, defaults, 9);
    expect(nine.record.state).toBe('closed');
    expect(nine.opened).toBeNull();
    const ten = failTimes(CLOSED_CIRCUIT, defaults, 10);
    expect(ten.record.state).toBe('open');
    expect(ten.opened?.notice).toBe('destination.circuit_opened');
    expect(ten.record.openedAt).toEqual(at(9_000));
    expect(ten.record.nextProbeAt).toEqual(at(9_000 + 60_000));
  });

  it('asks for the rate only once the failures could reach it', () => {
    let r: CircuitRecord = CLOSED_CIRCUIT;
    const checks: number[] = [];
    for (let i = 1; i <= 7; i += 1) {
      const c = countFailure(r, defaults, at(i), at(i));
      r = c.record;
      if (c.check) checks.push(i);
    }
    // 0.7 × 10: fewer than 7 failures can never be 70% of at least 10 attempts.
    expect(checks).toEqual([7]);
    expect(r.windowStart).toEqual(at(1));
  });

  it('stays closed when successes keep the rate under failure_rate, and waits for enough failures to look again', () => {
    const r = failTimes(CLOSED_CIRCUIT, defaults, 6).record;
    const seventh = countFailure(r, defaults, at(7_000), at(7_000));
    expect(seventh.check).toBe(true);
    // 7 failures among 30 attempts: 23 successes need 0.7 × 23 / 0.3 = 54 failures before the rate can be 70%.
    const judged = judge(seventh.record, defaults, at(7_000), { attempts: 30, failures: 7, more: false });
    expect(judged.transition).toBeNull();
    expect(judged.record.checkAt).toBe(54);
    // A read that stopped at its limit found more attempts than the failures could make a 70% share of.
    expect(scanLimit(seventh.record, defaults)).toBe(11);
    const capped = judge(seventh.record, defaults, at(7_000), { attempts: 11, failures: 7, more: true });
    expect(capped.transition).toBeNull();
  });

  it('starts a new window once the last one is over', () => {
    const r = failTimes(CLOSED_CIRCUIT, defaults, 6).record;
    const later = countFailure(r, defaults, at(400_000), at(400_000));
    expect(later.record).toMatchObject({ windowStart: at(400_000), windowFailures: 1, checkAt: 7 });
    expect(later.check).toBe(false);
  });

  it('counts nothing when the breaker is off or already open', () => {
    const off = circuitOf({ enabled: false });
    expect(countFailure(CLOSED_CIRCUIT, off, T0, T0)).toEqual({ record: CLOSED_CIRCUIT, check: false });
    const open = failTimes(CLOSED_CIRCUIT, defaults, 10).record;
    expect(countFailure(open, defaults, T0, at(10_000)).record).toBe(open);
  });
});

describe('circuit: open, half-open, probes, disabled', () => {
  const small = circuitOf({ min_requests: 2, open_for: '2s', disable_after: '10s' });
  const opened = () => failTimes(CLOSED_CIRCUIT, small, 2).record; // opens at at(1000), probe at at(3000)

  it('holds every delivery while open and lets one probe through once open_for has passed', () => {
    const r = opened();
    expect(admit(r, small, at(2_999), at(60_000)).admission).toBe('hold');
    const first = admit(r, small, at(3_000), at(60_000));
    expect(first.admission).toBe('probe');
    expect(first.record).toMatchObject({ state: 'half_open', probeUntil: at(60_000) });
    expect(first.transition?.event).toBe('probe_due');
    // One probe at a time: the next waits for its answer (or for its lease to run out).
    expect(admit(first.record, small, at(3_100), at(60_100)).admission).toBe('hold');
    expect(admit(first.record, small, at(60_001), at(120_000)).admission).toBe('probe');
  });

  it('shows half-open once open_for has passed, before any delivery asks', () => {
    expect(circuitAt(opened(), small, at(3_000)).record.state).toBe('half_open');
    expect(circuitAt(opened(), small, at(2_000)).record.state).toBe('open');
  });

  it('closes on a successful probe, forgetting the outage', () => {
    const probing = admit(opened(), small, at(3_000), at(60_000)).record;
    const closed = settleProbe(probing, small, at(3_200), 'success');
    expect(closed.transition?.notice).toBe('destination.circuit_closed');
    expect(closed.record).toEqual(CLOSED_CIRCUIT);
  });

  it('reopens on a failed probe for twice as long, then disables after disable_after', () => {
    let r = admit(opened(), small, at(3_000), at(60_000)).record;
    let s = settleProbe(r, small, at(3_100), 'failure');
    expect(s.transition?.event).toBe('probe_failed');
    expect(s.transition?.notice).toBeNull();
    expect(s.record).toMatchObject({
      state: 'open',
      reopens: 1,
      openedAt: at(1_000),
      nextProbeAt: at(7_100),
    });
    r = admit(s.record, small, at(7_100), at(60_000)).record;
    s = settleProbe(r, small, at(7_200), 'failure');
    expect(s.record).toMatchObject({ state: 'open', reopens: 2, nextProbeAt: at(15_200) });
    r = admit(s.record, small, at(15_200), at(60_000)).record;
    s = settleProbe(r, small, at(15_300), 'failure');
    expect(s.transition?.notice).toBe('destination.disabled');
    expect(s.record.state).toBe('disabled');
    // Disabled holds everything, however long, until enabled.
    expect(admit(s.record, small, at(86_400_000), at(86_500_000)).admission).toBe('hold');
    const enabled = step(s.record, 'enable', small, at(20_000));
    expect(enabled?.record).toEqual(CLOSED_CIRCUIT);
    expect(enabled?.transition?.notice).toBe('destination.circuit_closed');
  });

  it('lets everything through when the breaker is off', () => {
    expect(admit(opened(), circuitOf({ enabled: false }), at(1_500), at(60_000)).admission).toBe('pass');
  });

  it('leaves a circuit that is no longer half-open as it is when a probe answers late', () => {
    expect(settleProbe(CLOSED_CIRCUIT, small, T0, 'failure').transition).toBeNull();
  });
});

describe('circuit: what an attempt says', () => {
  it('counts retryable failures, takes any other answer as a sign of life and ignores blocked attempts', () => {
    expect(signalOf('retryable', 'http')).toBe('failure');
    expect(signalOf('retryable', 'timeout')).toBe('failure');
    expect(signalOf('retryable', 'connect')).toBe('failure');
    expect(signalOf('success', null)).toBe('success');
    expect(signalOf('permanent', 'http')).toBe('success');
    expect(signalOf('permanent', 'blocked')).toBeNull();
  });
});

describe('circuit: properties over any sequence of events', () => {
  type Op =
    | { kind: 'fail'; advance: number }
    | { kind: 'judge'; attempts: number; failures: number; more: boolean }
    | { kind: 'admit'; advance: number }
    | { kind: 'probe'; signal: CircuitSignal; advance: number }
    | { kind: 'enable' };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('fail' as const), advance: fc.integer({ min: 0, max: 120_000 }) }),
    fc
      .record({
        kind: fc.constant('judge' as const),
        attempts: fc.integer({ min: 0, max: 40 }),
        failures: fc.integer({ min: 0, max: 40 }),
        more: fc.boolean(),
      })
      .map((j) => ({ ...j, failures: Math.min(j.failures, j.attempts) })),
    fc.record({ kind: fc.constant('admit' as const), advance: fc.integer({ min: 0, max: 4_000_000 }) }),
    fc.record({
      kind: fc.constant('probe' as const),
      signal: fc.constantFrom<CircuitSignal>('success', 'failure'),
      advance: fc.integer({ min: 0, max: 600_000 }),
    }),
    fc.constant({ kind: 'enable' as const }),
  );
  const settings = fc.record({
    min_requests: fc.integer({ min: 1, max: 20 }),
    failure_rate: fc.double({ min: 0.01, max: 1, noNaN: true }),
    open_for: fc.constantFrom('1s', '30s', '1m', '2h'),
    disable_after: fc.constantFrom('10s', '1h', '5d'),
    window: fc.constantFrom('10s', '5m'),
  });
  const legal = new Set(CIRCUIT_TRANSITIONS.map((t) => `${t.from}:${t.event}:${t.to}`));

  it('changes state only through the table, keeps each state consistent, and disables only after disable_after', () => {
    fc.assert(
      fc.property(settings, fc.array(op, { maxLength: 60 }), (s, ops) => {
        const c = circuitOf(s);
        let now = T0.getTime();
        let r: CircuitRecord = CLOSED_CIRCUIT;
        for (const o of ops) {
          let next: { record: CircuitRecord; transition: (typeof CIRCUIT_TRANSITIONS)[number] | null };
          if (o.kind === 'fail') {
            now += o.advance;
            next = { record: countFailure(r, c, new Date(now), new Date(now)).record, transition: null };
          } else if (o.kind === 'judge') {
            next = r.state === 'closed' ? judge(r, c, new Date(now), o) : { record: r, transition: null };
          } else if (o.kind === 'admit') {
            now += o.advance;
            next = admit(r, c, new Date(now), new Date(now + 30_000));
          } else if (o.kind === 'probe') {
            now += o.advance;
            next = settleProbe(r, c, new Date(now), o.signal);
          } else {
            next = step(r, 'enable', c, new Date(now)) ?? { record: r, transition: null };
          }
          if (next.record.state !== r.state) {
            expect(next.transition).not.toBeNull();
            expect(legal.has(`${r.state}:${next.transition!.event}:${next.record.state}`)).toBe(true);
          }
          r = next.record;
          if (r.state === 'closed') {
            expect(r.openedAt).toBeNull();
            expect(r.nextProbeAt).toBeNull();
            expect(r.reopens).toBe(0);
          } else {
            expect(r.openedAt).not.toBeNull();
          }
          // Stored states change only when asked (a later `admit` sees the half-open due): check on entering.
          if (r.state === 'open' && next.transition) {
            const wait = r.nextProbeAt!.getTime() - now;
            expect(wait).toBeGreaterThanOrEqual(0);
            expect(wait).toBeLessThanOrEqual(Math.max(c.openForMs, OPEN_FOR_CAP_MS));
          }
          if (r.state === 'disabled' && next.transition?.event === 'give_up')
            expect(now - r.openedAt!.getTime()).toBeGreaterThanOrEqual(c.disableAfterMs);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never opens a circuit on fewer than min_requests attempts or under failure_rate', () => {
    fc.assert(
      fc.property(settings, fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 50 }), (s, n, f) => {
        const c = circuitOf(s);
        const failures = Math.min(n, f);
        const r = { ...CLOSED_CIRCUIT, windowStart: T0, windowFailures: failures, checkAt: 0 };
        const judged = judge(r, c, T0, { attempts: n, failures, more: false });
        const shouldOpen = n >= c.minRequests && failures >= c.failureRate * n - 1e-9;
        expect(judged.record.state).toBe(shouldOpen ? 'open' : 'closed');
        // When it stays closed, the next look is never later than the first count that could open it.
        if (!shouldOpen) {
          for (let extra = 1; extra < judged.record.checkAt - failures && extra < 200; extra += 1) {
            const more = failures + extra;
            expect(n + extra >= c.minRequests && more >= c.failureRate * (n + extra) - 1e-9).toBe(false);
          }
        }
      }),
      { numRuns: 1_000 },
    );
  });
});
