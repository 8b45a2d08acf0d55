import { describe, expect, it } from 'vitest';
import { timeOrderedId, uuidv7LowerBound } from './ids.js';

describe('timeOrderedId', () => {
  it('is a version 7 UUID whose first 48 bits are the time, ordered by it, and otherwise random', () => {
    const at = Date.parse('2026-11-26T17:00:00.000Z');
    const a = timeOrderedId(at);
    const b = timeOrderedId(at + 1);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.parseInt(a.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
    expect(a < b).toBe(true);
    const many = new Set(Array.from({ length: 5000 }, () => timeOrderedId(at)));
    expect(many.size).toBe(5000);
  });
});

describe('uuidv7LowerBound', () => {
  it('sorts below every id of its instant and later, above every id made before it', () => {
    const at = Date.parse('2026-12-01T00:00:00.000Z');
    const bound = uuidv7LowerBound(new Date(at));
    expect(bound).toBe(
      `${at
        .toString(16)
        .padStart(12, '0')
        .replace(/^(.{8})(.{4})$/, '$1-$2')}-0000-0000-000000000000`,
    );
    for (let i = 0; i < 200; i++) {
      expect(timeOrderedId(at) >= bound).toBe(true);
      expect(timeOrderedId(at + 1) > bound).toBe(true);
      expect(timeOrderedId(at - 1) < bound).toBe(true);
    }
    expect(uuidv7LowerBound(new Date(0))).toBe('00000000-0000-0000-0000-000000000000');
  });
});
