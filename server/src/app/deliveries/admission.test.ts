import { describe, expect, it } from 'vitest';
import { Admission } from './admission.js';

describe('delivery admission', () => {
  it('gives each account its room under the per-account cap, and nothing to a full one', () => {
    const a = new Admission({ total: 10, perAccount: 2 });
    expect(a.tryTake('A')).toBe(true);
    expect(a.tryTake('A')).toBe(true);
    expect(a.tryTake('A')).toBe(false);
    a.take('B');
    expect(a.inFlight).toBe(3);
    expect(a.free).toBe(7);
    expect(a.rooms()).toEqual(
      new Map([
        ['A', 0],
        ['B', 1],
      ]),
    );
    a.release('A');
    expect(a.rooms().get('A')).toBe(1);
    expect(a.tryTake('A')).toBe(true);
  });

  it("gives the account's room back when the request is done, the process slot when the attempt is recorded", () => {
    const a = new Admission({ total: 3, perAccount: 1 });
    expect(a.tryTake('A')).toBe(true);
    expect(a.tryTake('A')).toBe(false);
    a.sent('A');
    expect(a.tryTake('A')).toBe(true);
    expect([a.inFlight, a.free]).toEqual([2, 1]);
    a.release('A', true);
    expect([a.inFlight, a.rooms().get('A')]).toEqual([1, 0]);
    a.release('A');
    expect([a.inFlight, a.rooms().size]).toEqual([0, 0]);
  });

  it('keeps the global cap, whatever the accounts', () => {
    const a = new Admission({ total: 2, perAccount: 5 });
    expect(a.tryTake('A')).toBe(true);
    expect(a.tryTake('B')).toBe(true);
    expect(a.tryTake('C')).toBe(false);
    expect(a.free).toBe(0);
    a.release('B');
    expect(a.tryTake('C')).toBe(true);
    a.release('A');
    a.release('C');
    expect([a.inFlight, a.free]).toEqual([0, 2]);
    expect(a.rooms()).toEqual(new Map());
  });
});
