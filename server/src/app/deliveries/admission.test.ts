import { describe, expect, it } from 'vitest';
import { Admission } from './admission.js';

describe('delivery admission', () => {
  it('starts attempts up to the per-account cap, then queues them unclaimed', () => {
    const a = new Admission<string>({ total: 10, perAccount: 2 });
    expect(a.offer('A', 'a1')).toBe(true);
    expect(a.offer('A', 'a2')).toBe(true);
    expect(a.offer('A', 'a3')).toBe(false);
    expect(a.offer('B', 'b1')).toBe(true);
    expect([a.inFlight, a.queued]).toEqual([3, 1]);
    expect(a.release('A')).toEqual([{ account: 'A', item: 'a3' }]);
    expect([a.inFlight, a.queued]).toEqual([3, 0]);
  });

  it('keeps the global cap, whatever the accounts', () => {
    const a = new Admission<string>({ total: 2, perAccount: 5 });
    expect(a.offer('A', 'a1')).toBe(true);
    expect(a.offer('B', 'b1')).toBe(true);
    expect(a.offer('C', 'c1')).toBe(false);
    expect(a.release('B')).toEqual([{ account: 'C', item: 'c1' }]);
    expect(a.inFlight).toBe(2);
    expect(a.release('A')).toEqual([]);
    expect(a.release('C')).toEqual([]);
    expect(a.inFlight).toBe(0);
  });

  it("serves waiting accounts round-robin, not in the order of one account's flood", () => {
    const a = new Admission<string>({ total: 1, perAccount: 1 });
    expect(a.offer('A', 'a0')).toBe(true);
    for (let i = 1; i <= 3; i += 1) a.offer('A', `a${i}`);
    a.offer('B', 'b1');
    a.offer('B', 'b2');
    a.offer('C', 'c1');
    const order: string[] = [];
    let current = 'A';
    for (;;) {
      const [next] = a.release(current);
      if (!next) break;
      order.push(next.item);
      current = next.account;
    }
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    expect([a.inFlight, a.queued]).toEqual([0, 0]);
  });

  it('does not let a newcomer jump ahead of its own account when it waits', () => {
    const a = new Admission<string>({ total: 5, perAccount: 1 });
    expect(a.offer('A', 'a1')).toBe(true);
    expect(a.offer('A', 'a2')).toBe(false);
    expect(a.release('A')).toEqual([{ account: 'A', item: 'a2' }]);
    expect(a.offer('A', 'a3')).toBe(false);
    expect(a.queued).toBe(1);
  });

  it('fills every free slot at once when a cap is freed for several accounts', () => {
    const a = new Admission<string>({ total: 3, perAccount: 1 });
    a.offer('A', 'a1');
    a.offer('B', 'b1');
    a.offer('C', 'c1');
    a.offer('D', 'd1');
    a.offer('E', 'e1');
    expect(a.release('A').map((s) => s.item)).toEqual(['d1']);
    expect(a.release('B').map((s) => s.item)).toEqual(['e1']);
    expect(a.release('C')).toEqual([]);
    expect(a.inFlight).toBe(2);
  });
});
