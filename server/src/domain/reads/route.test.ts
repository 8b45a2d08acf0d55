import { describe, expect, it } from 'vitest';
import { readTarget, shouldRecordWrite } from './route.js';

const now = new Date('2026-11-28T12:00:00Z');
const ago = (s: number) => new Date(now.getTime() - s * 1000);
const policy = { maxLagSeconds: 5, readYourWritesSeconds: 3 };
const up = (lagSeconds: number) => ({ state: 'up' as const, lagSeconds });
const read = (over: Partial<Parameters<typeof readTarget>[0]> = {}) => ({
  strong: false,
  lastWriteAt: null,
  now,
  ...over,
});

describe('readTarget', () => {
  it('serves from the replica when it is up, close behind, and the account has not written lately', () => {
    expect(readTarget(read(), up(0.2), policy)).toEqual({ on: 'replica' });
    expect(readTarget(read({ lastWriteAt: ago(10) }), up(0.2), policy)).toEqual({ on: 'replica' });
  });

  it('sends the read to the primary without a replica, with consistency=strong, or with the replica down', () => {
    expect(readTarget(read(), undefined, policy)).toEqual({ on: 'primary', why: 'no_replica' });
    expect(readTarget(read({ strong: true }), up(0), policy)).toEqual({ on: 'primary', why: 'strong' });
    expect(readTarget(read(), { state: 'down' }, policy)).toEqual({ on: 'primary', why: 'replica_down' });
  });

  it('falls back to the primary while the replica lags past the bound', () => {
    expect(readTarget(read(), up(5), policy)).toEqual({ on: 'replica' });
    expect(readTarget(read(), up(5.01), policy)).toEqual({ on: 'primary', why: 'replica_lagging' });
  });

  it("keeps an account's reads on the primary for the window after its write", () => {
    // Three seconds, plus the second by which a throttled record may be early.
    expect(readTarget(read({ lastWriteAt: ago(3.9) }), up(0), policy)).toEqual({
      on: 'primary',
      why: 'recent_write',
    });
    expect(readTarget(read({ lastWriteAt: ago(4) }), up(0), policy)).toEqual({ on: 'replica' });
  });

  it('stretches the window to the lag (plus a second) when the replica is further behind than the window', () => {
    const lagging = { maxLagSeconds: 60, readYourWritesSeconds: 3 };
    expect(readTarget(read({ lastWriteAt: ago(20) }), up(30), lagging)).toMatchObject({
      why: 'recent_write',
    });
    expect(readTarget(read({ lastWriteAt: ago(32) }), up(30), lagging)).toEqual({ on: 'replica' });
  });
});

describe('shouldRecordWrite', () => {
  it('records the first write, then at most once a second per account', () => {
    expect(shouldRecordWrite(undefined, now)).toBe(true);
    expect(shouldRecordWrite(ago(0.5), now)).toBe(false);
    expect(shouldRecordWrite(ago(1), now)).toBe(true);
  });
});
