import { describe, expect, it } from 'vitest';
import { ANNOUNCE_WINDOW_MS, withinAnnounceWindow } from '../schedule/window.js';
import { createNeedsTransaction } from './create-shape.js';

const now = new Date('2026-11-25T00:00:00Z');
const plain = { locksKeys: false, hasGate: false, quotaLimited: false, countsDestination: false };

describe('createNeedsTransaction', () => {
  it('a plain create is one statement, whenever it is due', () => {
    expect(createNeedsTransaction(plain)).toBe(false);
  });

  it('each extra write asks for a transaction', () => {
    for (const extra of ['locksKeys', 'hasGate', 'quotaLimited', 'countsDestination'] as const)
      expect(createNeedsTransaction({ ...plain, [extra]: true })).toBe(true);
  });
});

describe('withinAnnounceWindow', () => {
  it('is inclusive at the edge and false past it', () => {
    expect(withinAnnounceWindow(new Date(now.getTime() + ANNOUNCE_WINDOW_MS), now)).toBe(true);
    expect(withinAnnounceWindow(new Date(now.getTime() + ANNOUNCE_WINDOW_MS + 1), now)).toBe(false);
    expect(withinAnnounceWindow(new Date(now.getTime() - 5), now)).toBe(true);
  });
});
