import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  callbackRetryDelayMs,
  parseRetryAfter,
  RETRY_JITTER,
  retryDelayMs,
  shouldRetry,
} from './retry-policy.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
/** A draw in the middle: no jitter, the strategy's wait exactly. */
const exact = () => 0.5;

describe('retryDelayMs: exponential', () => {
  it.each([
    [0, 0],
    [1, MIN],
    [2, 5 * MIN],
    [3, 15 * MIN],
    [4, HOUR],
    [5, 4 * HOUR],
    [6, 4 * HOUR],
    [19, 4 * HOUR],
  ])('after %d attempts waits %d ms', (made, wait) => {
    expect(retryDelayMs('exponential', made, null, exact)).toBe(wait);
  });
});

describe('retryDelayMs: linear', () => {
  it.each([
    [0, 0],
    [1, 5 * MIN],
    [2, 10 * MIN],
    [3, 15 * MIN],
    [9, 45 * MIN],
    [19, 95 * MIN],
  ])('after %d attempts waits %d ms', (made, wait) => {
    expect(retryDelayMs('linear', made, null, exact)).toBe(wait);
  });
});

describe('retryDelayMs: Retry-After', () => {
  it('wins when it asks for longer', () => {
    expect(retryDelayMs('exponential', 1, 120_000, exact)).toBe(120_000);
    expect(retryDelayMs('linear', 1, 10 * MIN, exact)).toBe(10 * MIN);
  });
  it('is ignored when shorter, null or absent', () => {
    expect(retryDelayMs('exponential', 2, 30_000, exact)).toBe(5 * MIN);
    expect(retryDelayMs('exponential', 2, null, exact)).toBe(5 * MIN);
    expect(retryDelayMs('linear', 2, undefined, exact)).toBe(10 * MIN);
    expect(retryDelayMs('linear', 2, Number.NaN, exact)).toBe(10 * MIN);
  });
  it('is capped at 24 hours', () => {
    expect(retryDelayMs('exponential', 1, 7 * 24 * HOUR, exact)).toBe(24 * HOUR);
    expect(retryDelayMs('exponential', 1, Number.POSITIVE_INFINITY, exact)).toBe(24 * HOUR);
  });
});

describe('retryDelayMs: jitter', () => {
  it('moves the wait by up to 10 % either way, as the random source says', () => {
    expect(retryDelayMs('exponential', 1, null, () => 0)).toBe(0.9 * MIN);
    expect(retryDelayMs('exponential', 1, null, () => 0.5)).toBe(MIN);
    expect(retryDelayMs('exponential', 1, null, () => 0.75)).toBe(1.05 * MIN);
    expect(retryDelayMs('linear', 2, null, () => 0.25)).toBe(9.5 * MIN);
  });

  it('stays within the bounds for any attempt and any draw', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('exponential' as const, 'linear' as const),
        fc.integer({ min: 0, max: 30 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (strategy, made, draw) => {
          const strategyWait = retryDelayMs(strategy, made, null, exact);
          const wait = retryDelayMs(strategy, made, null, () => draw);
          expect(wait).toBeGreaterThanOrEqual(Math.floor(strategyWait * (1 - RETRY_JITTER)));
          expect(wait).toBeLessThanOrEqual(Math.ceil(strategyWait * (1 + RETRY_JITTER)));
        },
      ),
    );
  });

  it('spreads the actions that failed together: 100 draws give 100 instants over ±10 %', () => {
    let seed = 1;
    // A small deterministic generator (a linear congruential one), so the test is the same every run.
    const random = () => {
      seed = (seed * 48_271) % 2_147_483_647;
      return seed / 2_147_483_647;
    };
    const waits = Array.from({ length: 100 }, () => retryDelayMs('exponential', 2, null, random));
    expect(new Set(waits).size).toBe(100);
    expect(Math.max(...waits) - Math.min(...waits)).toBeGreaterThan(0.15 * 5 * MIN);
  });

  it('leaves a longer Retry-After as the receiver asked', () => {
    expect(retryDelayMs('exponential', 1, 120_000, () => 0)).toBe(120_000);
  });

  it('applies to callbacks too: +1 min, then +5 min', () => {
    expect(callbackRetryDelayMs(1, exact)).toBe(MIN);
    expect(callbackRetryDelayMs(2, exact)).toBe(5 * MIN);
    expect(callbackRetryDelayMs(2, () => 1 - Number.EPSILON)).toBe(5.5 * MIN);
  });
});

describe('parseRetryAfter', () => {
  const now = new Date('2026-05-05T10:00:00.000Z');
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1_500);
    expect(parseRetryAfter(['30', '60'], now)).toBe(30_000);
  });
  it('reads HTTP dates', () => {
    expect(parseRetryAfter('Tue, 05 May 2026 10:02:00 GMT', now)).toBe(120_000);
    expect(parseRetryAfter('Tuesday, 05-May-26 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Tue May  5 10:01:00 2026', new Date('2026-05-05T10:00:00'))).toBe(60_000);
  });
  it('gives 0 for a past date', () => {
    expect(parseRetryAfter('Tue, 05 May 2026 09:00:00 GMT', now)).toBe(0);
  });
  it('gives null for absent or unreadable values', () => {
    for (const value of [
      undefined,
      null,
      '',
      '-5',
      'soon',
      '12abc',
      'Tue, 99 Foo 2026 xx GMT',
      '2026-05-05',
    ]) {
      expect(parseRetryAfter(value, now)).toBeNull();
    }
    expect(parseRetryAfter([], now)).toBeNull();
  });
});

describe('shouldRetry', () => {
  it('retries retryable outcomes while attempts remain (max_attempts includes the first)', () => {
    expect(shouldRetry('retryable', 1, 5)).toBe(true);
    expect(shouldRetry('retryable', 4, 5)).toBe(true);
    expect(shouldRetry('retryable', 5, 5)).toBe(false);
    expect(shouldRetry('retryable', 1, 1)).toBe(false);
  });
  it('never retries success or permanent failure', () => {
    expect(shouldRetry('success', 1, 5)).toBe(false);
    expect(shouldRetry('permanent', 1, 5)).toBe(false);
  });
});
