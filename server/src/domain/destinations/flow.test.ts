import { describe, expect, it } from 'vitest';
import { decideFlow, SLOT_RETRY_MS } from './flow.js';

const now = new Date('2026-11-25T10:00:00.000Z');
const at = (ms: number) => new Date(now.getTime() + ms);

describe('decideFlow', () => {
  it('admits anything without limits, counting it in a fresh window', () => {
    expect(decideFlow({}, { inFlight: 99, windowStart: null, windowCount: 0 }, now)).toEqual({
      admit: true,
      windowStart: now,
      windowCount: 1,
    });
  });

  it('holds at the parallelism, looking again shortly', () => {
    const limits = { parallelism: 2 };
    expect(decideFlow(limits, { inFlight: 1, windowStart: null, windowCount: 0 }, now).admit).toBe(true);
    expect(decideFlow(limits, { inFlight: 2, windowStart: null, windowCount: 0 }, now)).toEqual({
      admit: false,
      retryAt: at(SLOT_RETRY_MS),
      reason: 'parallelism',
    });
  });

  it('counts the rate per period and holds until the window ends', () => {
    const limits = { rate: 3, period: '1m' as const };
    const state = { inFlight: 0, windowStart: at(-10_000), windowCount: 2 };
    expect(decideFlow(limits, state, now)).toEqual({ admit: true, windowStart: at(-10_000), windowCount: 3 });
    expect(decideFlow(limits, { ...state, windowCount: 3 }, now)).toEqual({
      admit: false,
      retryAt: at(50_000),
      reason: 'rate',
    });
    // The window has passed: a new one starts now.
    expect(decideFlow(limits, { ...state, windowStart: at(-60_000), windowCount: 3 }, now)).toEqual({
      admit: true,
      windowStart: now,
      windowCount: 1,
    });
  });

  it('defaults the period to one second', () => {
    const state = { inFlight: 0, windowStart: at(-500), windowCount: 1 };
    expect(decideFlow({ rate: 1 }, state, now)).toMatchObject({ admit: false, retryAt: at(500) });
    expect(decideFlow({ rate: 1 }, { ...state, windowStart: at(-1000) }, now).admit).toBe(true);
  });
});
