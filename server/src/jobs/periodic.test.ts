import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../logger.js';
import { PeriodicLoop } from './periodic.js';

describe('PeriodicLoop', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** A loop whose runs answer how much they found (the queue `found`), recording when each ran. */
  const loop = (found: number[], o: { idleIntervalMs?: number } = {}) => {
    const runs: number[] = [];
    const start = Date.now();
    const l = new PeriodicLoop<number>({
      run: async () => {
        runs.push(Date.now() - start);
        return found.shift() ?? 0;
      },
      what: 'test',
      intervalMs: 1_000,
      ...(o.idleIntervalMs ? { idle: (n: number) => n === 0, idleIntervalMs: o.idleIntervalMs } : {}),
      logger: createLogger('silent'),
    });
    return { l, runs };
  };

  it('without `idle`, runs every interval', async () => {
    const { l, runs } = loop([]);
    l.start();
    await vi.advanceTimersByTimeAsync(3_500);
    await l.stop();
    expect(runs).toEqual([0, 1_000, 2_000, 3_000]);
  });

  it('backs off while runs find nothing, up to `idleIntervalMs`, and comes back to the interval on work', async () => {
    // Runs 1-4 find nothing (waits 2, 4, 8, 8 s), run 5 finds work (wait 1 s), run 6 nothing (2 s).
    const { l, runs } = loop([0, 0, 0, 0, 5, 0], { idleIntervalMs: 8_000 });
    l.start();
    await vi.advanceTimersByTimeAsync(26_000);
    await l.stop();
    expect(runs).toEqual([0, 2_000, 6_000, 14_000, 22_000, 23_000, 25_000]);
  });

  it('`soon` cuts a backed-off wait to the interval; `now` runs at once; neither runs twice at once', async () => {
    const { l, runs } = loop([], { idleIntervalMs: 60_000 });
    l.start();
    await vi.advanceTimersByTimeAsync(6_100); // runs at 0, 2 s, 6 s; the next would be at 14 s
    l.soon();
    l.soon();
    await vi.advanceTimersByTimeAsync(1_000); // 7.1 s: runs at 7.1 s (backed off again to 2 s: next at 9.1 s)
    l.now();
    await vi.advanceTimersByTimeAsync(0);
    await l.stop();
    expect(runs).toEqual([0, 2_000, 6_000, 7_100, 7_100]);
  });

  it('a `now` asked during a run runs again right after it; a failed run waits the interval', async () => {
    let release: () => void = () => undefined;
    let calls = 0;
    const l = new PeriodicLoop<number>({
      run: async () => {
        calls += 1;
        if (calls === 1) await new Promise<void>((r) => (release = r));
        if (calls === 2) throw new Error('boom');
        return 0;
      },
      what: 'test',
      intervalMs: 1_000,
      idle: () => true,
      idleIntervalMs: 30_000,
      logger: createLogger('silent'),
    });
    l.start();
    l.now();
    expect(calls).toBe(1);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(3);
    await l.stop();
  });
});
