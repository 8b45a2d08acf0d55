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
});
