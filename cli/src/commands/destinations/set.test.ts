import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { buildDestinationUpdate } from './set.js';

describe('sched destinations set', () => {
  it('builds the flow settings from the given flags, or clears them with --no-flow', () => {
    expect(buildDestinationUpdate({ parallelism: '4', rate: '10', period: '1m', flow: true })).toEqual({
      flow: { parallelism: 4, rate: 10, period: '1m' },
    });
    expect(buildDestinationUpdate({ rate: '5', flow: true })).toEqual({ flow: { rate: 5 } });
    expect(buildDestinationUpdate({ flow: false })).toEqual({ flow: null });
  });

  it('builds the circuit settings from the circuit flags alone, leaving flow as it is', () => {
    expect(
      buildDestinationUpdate({ minRequests: '20', openFor: '30s', failureRate: '0.5', flow: true }),
    ).toEqual({
      circuit: { min_requests: 20, open_for: '30s', failure_rate: 0.5 },
    });
    expect(buildDestinationUpdate({ circuit: 'off', flow: true })).toEqual({ circuit: { enabled: false } });
    expect(buildDestinationUpdate({ circuit: 'defaults', rate: '3', flow: true })).toEqual({
      flow: { rate: 3 },
      circuit: null,
    });
    expect(() => buildDestinationUpdate({ circuit: 'maybe', flow: true })).toThrow('on, off or defaults');
    for (const bad of [{ minRequests: '0' }, { window: '5 minutes' }, { failureRate: '2' }])
      expect(() => buildDestinationUpdate({ ...bad, flow: true })).toThrow(ZodError);
  });

  it("refuses what the contract's schema refuses, before any request", () => {
    for (const bad of [{ parallelism: 'two' }, { rate: '1.5' }, { rate: '0' }, { period: '1d' }]) {
      expect(() => buildDestinationUpdate({ ...bad, flow: true })).toThrow(ZodError);
    }
  });
});
