import { describe, expect, it } from 'vitest';
import { TickBatch } from './tick-batch.js';

describe('TickBatch (group commit per turn of the event loop)', () => {
  it('runs the calls of one turn as one batch and answers each its own result', async () => {
    const runs: number[][] = [];
    const batch = new TickBatch<number, number>(async (items) => {
      runs.push(items);
      return items.map((i) => i * 10);
    });
    const first = await Promise.all([batch.add(1), batch.add(2), batch.add(3)]);
    const later = await batch.add(4);
    expect(first).toEqual([10, 20, 30]);
    expect(later).toBe(40);
    expect(runs).toEqual([[1, 2, 3], [4]]);
  });

  it('splits a turn larger than its limit', async () => {
    const runs: number[][] = [];
    const batch = new TickBatch<number, number>(async (items) => {
      runs.push(items);
      return items;
    }, 2);
    expect(await Promise.all([1, 2, 3, 4, 5].map((i) => batch.add(i)))).toEqual([1, 2, 3, 4, 5]);
    expect(runs).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('retries each item alone when the batch fails, so one bad item costs only itself', async () => {
    const runs: number[][] = [];
    const batch = new TickBatch<number, number>(async (items) => {
      runs.push(items);
      if (items.includes(2)) throw new Error(`bad item among ${items.join(',')}`);
      return items;
    });
    const settled = await Promise.allSettled([batch.add(1), batch.add(2), batch.add(3)]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toEqual(new Error('bad item among 2'));
    expect(runs).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it('refuses a batch that does not answer one result per item', async () => {
    const batch = new TickBatch<number, number>(async () => []);
    await expect(batch.add(1)).rejects.toThrow('one result per item');
  });

  it('with a wait, gathers the calls of the next milliseconds, and flushes at once when full', async () => {
    const runs: number[][] = [];
    const batch = new TickBatch<number, number>(
      async (items) => {
        runs.push(items);
        return items;
      },
      3,
      Number.POSITIVE_INFINITY,
      200,
    );
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
    const started = Date.now();
    // Three calls in three turns: one batch, sent as soon as it is full, long before the wait ends.
    const full = [batch.add(1)];
    await turn();
    full.push(batch.add(2));
    await turn();
    full.push(batch.add(3));
    expect(await Promise.all(full)).toEqual([1, 2, 3]);
    expect(Date.now() - started).toBeLessThan(150);
    // Two calls in two turns: one batch, sent when the first has waited its 200 ms.
    const partial = [batch.add(4)];
    await turn();
    partial.push(batch.add(5));
    const waited = Date.now();
    expect(await Promise.all(partial)).toEqual([4, 5]);
    expect(Date.now() - waited).toBeGreaterThanOrEqual(150);
    expect(runs).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('with a wait, a batch that ends early does not cut short the wait of the items gathering behind it', async () => {
    const runs: number[][] = [];
    const batch = new TickBatch<number, number>(
      async (items) => {
        runs.push(items);
        await new Promise((resolve) => setTimeout(resolve, 10));
        return items;
      },
      64,
      4,
      150,
    );
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const first = batch.add(1);
    // The first batch goes at 150 ms and ends about 10 ms later; 2 arrives while it runs, 3 after it ended.
    await sleep(155);
    const second = batch.add(2);
    await sleep(40);
    const third = batch.add(3);
    expect(await Promise.all([first, second, third])).toEqual([1, 2, 3]);
    // 2 waited its own 150 ms and took 3 along, instead of leaving alone when the first batch ended.
    expect(runs).toEqual([[1], [2, 3]]);
  });

  it('with a wait, items whose time came while the batches under way were at their limit go when one ends', async () => {
    const runs: number[][] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const batch = new TickBatch<number, number>(
      async (items) => {
        runs.push(items);
        if (items[0] === 1) await gate;
        return items;
      },
      64,
      1,
      20,
    );
    const first = batch.add(1);
    await new Promise((resolve) => setTimeout(resolve, 40));
    const second = batch.add(2);
    // 2's wait ends while the one batch allowed is under way: it is sent as soon as that batch ends.
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(runs).toEqual([[1]]);
    const released = Date.now();
    release();
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(Date.now() - released).toBeLessThan(15);
    expect(runs).toEqual([[1], [2]]);
  });

  it('drain sends a waiting batch at once and resolves when every batch under way has settled', async () => {
    const written: number[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const batch = new TickBatch<number, number>(
      async (items) => {
        await gate;
        written.push(...items);
        return items;
      },
      500,
      1,
      60_000,
    );
    const answers = [batch.add(1), batch.add(2)];
    const started = Date.now();
    const drained = batch.drain();
    let done = false;
    void drained.then(() => {
      done = true;
    });
    await new Promise<void>((resolve) => setImmediate(resolve));
    // Sent without waiting its minute, but not settled until the statement ends.
    expect(done).toBe(false);
    release();
    await drained;
    expect(written).toEqual([1, 2]);
    expect(await Promise.all(answers)).toEqual([1, 2]);
    expect(Date.now() - started).toBeLessThan(5_000);
    await batch.drain();
  });

  it('drain waits for the items added before it, not for a stream of later ones', async () => {
    const settled = new Set<number>();
    const batch = new TickBatch<number, number>(
      async (items) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        for (const i of items) settled.add(i);
        return items;
      },
      2,
      1,
    );
    const early = [1, 2, 3, 4, 5].map((i) => batch.add(i));
    let next = 100;
    const stream = setInterval(() => void batch.add(next++), 2);
    try {
      await batch.drain();
      expect([1, 2, 3, 4, 5].every((i) => settled.has(i))).toBe(true);
      expect(await Promise.all(early)).toEqual([1, 2, 3, 4, 5]);
    } finally {
      clearInterval(stream);
    }
    await batch.drain();
  });
});
