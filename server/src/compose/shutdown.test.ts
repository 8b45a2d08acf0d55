import { afterEach, describe, expect, it, vi } from 'vitest';
import { Shutdown } from './shutdown.js';

describe('Shutdown', () => {
  afterEach(() => vi.useRealTimers());

  it('runs the first steps in order, then the rest in reverse order of their start', async () => {
    const ran: string[] = [];
    const s = new Shutdown();
    s.add('pool', () => void ran.push('pool'));
    s.add('listener', () => void ran.push('listener'), { first: true });
    s.add('queue', () => void ran.push('queue'));
    s.add('triggers', () => void ran.push('triggers'));
    await s.run(true);
    expect(ran).toEqual(['listener', 'triggers', 'queue', 'pool']);
  });

  it('runs every step even after one fails, then rethrows the first failure', async () => {
    const ran: string[] = [];
    const s = new Shutdown();
    s.add('a', () => void ran.push('a'));
    s.add('b', () => {
      throw new Error('b failed');
    });
    s.add('c', () => {
      throw new Error('c failed');
    });
    await expect(s.run(true)).rejects.toThrow('c failed');
    expect(ran).toEqual(['a']);
  });

  it('names a slow step, and at the deadline gives up on the one that hangs, naming it', async () => {
    vi.useFakeTimers();
    const warnings: string[] = [];
    const s = new Shutdown();
    s.add('the LISTEN connection', () => new Promise<void>(() => {}));
    const stopped = s.run(true, { deadlineMs: 45_000, log: { warn: (_, m) => void warnings.push(m) } });
    const outcome = stopped.then(
      () => 'resolved',
      (err: Error) => err.message,
    );
    await vi.advanceTimersByTimeAsync(10_000);
    expect(warnings).toEqual(['shutdown: still waiting for the LISTEN connection']);
    await vi.advanceTimersByTimeAsync(35_000);
    expect(await outcome).toMatch(
      /^shutdown did not finish within 45000 ms: the LISTEN connection had run \d+ ms$/,
    );
  });

  it('without a hang the deadline never fires', async () => {
    vi.useFakeTimers();
    const s = new Shutdown();
    s.add('quick', () => undefined);
    await expect(s.run(true, { deadlineMs: 1_000 })).resolves.toBeUndefined();
    await vi.advanceTimersByTimeAsync(2_000);
  });
});
