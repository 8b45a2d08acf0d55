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

  it("refuses what the contract's schema refuses, before any request", () => {
    for (const bad of [{ parallelism: 'two' }, { rate: '1.5' }, { rate: '0' }, { period: '1d' }]) {
      expect(() => buildDestinationUpdate({ ...bad, flow: true })).toThrow(ZodError);
    }
  });
});
