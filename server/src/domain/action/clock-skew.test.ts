import { describe, expect, it } from 'vitest';
import { beyondSkewLimit, CLOCK_SKEW_LIMIT_MS, clockSkew } from './clock-skew.js';
import { MAX_CLAIM_AHEAD_MS } from './due-horizon.js';

describe('a worker clock against the database', () => {
  it('reads the database at the middle of the round trip', () => {
    expect(clockSkew({ sentAtMs: 1_000, databaseMs: 1_005, receivedAtMs: 1_010 })).toEqual({
      skewMs: 0,
      uncertaintyMs: 5,
    });
    expect(clockSkew({ sentAtMs: 3_000, databaseMs: 1_000, receivedAtMs: 3_002 })).toEqual({
      skewMs: 2_001,
      uncertaintyMs: 1,
    });
  });

  it('is beyond the limit only when the round trip cannot explain it, either way', () => {
    expect(CLOCK_SKEW_LIMIT_MS).toBe(MAX_CLAIM_AHEAD_MS / 2);
    expect(beyondSkewLimit({ sentAtMs: 10_000, databaseMs: 9_000, receivedAtMs: 10_000 })).toBe(true);
    expect(beyondSkewLimit({ sentAtMs: 10_000, databaseMs: 11_000, receivedAtMs: 10_000 })).toBe(true);
    expect(beyondSkewLimit({ sentAtMs: 10_000, databaseMs: 10_200, receivedAtMs: 10_000 })).toBe(false);
    // 400 ms apart by the middle, but the answer took 400 ms: it may have been read as late as the middle allows.
    expect(beyondSkewLimit({ sentAtMs: 10_000, databaseMs: 9_800, receivedAtMs: 10_400 })).toBe(false);
  });
});
