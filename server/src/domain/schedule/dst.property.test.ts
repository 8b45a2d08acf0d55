import fc from 'fast-check';
import { IANAZone } from 'luxon';
import { describe, expect, it } from 'vitest';
import { UNIT_MS } from './duration.js';
import { occurrenceAt } from './recurrence.js';
import { instantToWallTime, readWallTime, type WallTime, wallTimeCandidates } from './resolve.js';

// Property tests over the platform's time-zone database: every IANA zone the runtime knows, the next two years.
// Transitions are found by sampling each zone's offset weekly (no zone changes twice within a week) and bisecting to the millisecond, independently
// of the code under test.
const ZONES = Intl.supportedValuesOf('timeZone');
const FROM = Date.UTC(2026, 10, 1);
const TO = FROM + 2 * 366 * UNIT_MS.d;
const STEP = 7 * UNIT_MS.d;

interface Transition {
  zone: string;
  at: number;
  before: number;
  after: number;
}

function transitionsOf(zone: string): Transition[] {
  const z = IANAZone.create(zone);
  const found: Transition[] = [];
  let prev = z.offset(FROM);
  for (let t = FROM + STEP; t <= TO; t += STEP) {
    const off = z.offset(t);
    if (off === prev) continue;
    let lo = t - STEP;
    let hi = t;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (z.offset(mid) === prev) lo = mid;
      else hi = mid;
    }
    found.push({ zone, at: hi, before: prev, after: off });
    prev = off;
  }
  return found;
}

/** The wall time `offsetMin` minutes east of UTC at `utcMs`. */
const wallAt = (utcMs: number, offsetMin: number): WallTime => {
  const d = new Date(utcMs + offsetMin * UNIT_MS.m);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millisecond: d.getUTCMilliseconds(),
  };
};
const asUtc = (w: WallTime) =>
  Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.millisecond);
const same = (a: WallTime, b: WallTime) => asUtc(a) === asUtc(b);

describe('DST policy over every IANA zone, the next two years', () => {
  const transitions = ZONES.flatMap(transitionsOf);

  it('knows the zones and finds their transitions', () => {
    expect(ZONES.length).toBeGreaterThan(300);
    expect(transitions.some((t) => t.zone === 'America/New_York' && t.after > t.before)).toBe(true);
    expect(transitions.some((t) => t.zone === 'Europe/Berlin' && t.after < t.before)).toBe(true);
  });

  it('a wall time inside every gap does not exist: shifted by the policy, or skipped', () => {
    const gaps = transitions.filter((t) => t.after > t.before);
    expect(gaps.length).toBeGreaterThan(100);
    for (const t of gaps) {
      // The middle of the gap: local times from (at + before) to (at + after) are never shown.
      const wall = wallAt(t.at, (t.before + t.after) / 2);
      const c = wallTimeCandidates(wall, t.zone);
      expect(c.kind, `${t.zone} ${new Date(t.at).toISOString()}`).toBe('gap');
      if (c.kind !== 'gap') continue;
      expect(c.transition.getTime()).toBe(t.at);
      // same_offset: read with the offset of before the gap, i.e. moved on by the gap's length.
      expect(c.sameOffset.getTime()).toBe(asUtc(wall) - t.before * UNIT_MS.m);
      expect(asUtc(instantToWallTime(c.sameOffset, t.zone)) - asUtc(wall)).toBe(
        (t.after - t.before) * UNIT_MS.m,
      );
      expect(readWallTime(wall, t.zone, { gap: 'skip', fold: 'first' }).runs).toEqual([]);
      expect(readWallTime(wall, t.zone, { gap: 'shift_forward', fold: 'first' }).runs).toEqual([
        { at: new Date(t.at), dst: 'gap_shifted' },
      ]);
      expect(readWallTime(wall, t.zone).runs).toEqual([{ at: c.sameOffset, dst: 'gap_shifted' }]);
    }
  });

  it('a wall time inside every fold happens twice: first, second or both, each showing that wall time', () => {
    const folds = transitions.filter((t) => t.after < t.before);
    expect(folds.length).toBeGreaterThan(100);
    for (const t of folds) {
      const wall = wallAt(t.at, (t.before + t.after) / 2);
      const c = wallTimeCandidates(wall, t.zone);
      expect(c.kind, `${t.zone} ${new Date(t.at).toISOString()}`).toBe('fold');
      if (c.kind !== 'fold') continue;
      expect(c.first.getTime()).toBe(asUtc(wall) - t.before * UNIT_MS.m);
      expect(c.second.getTime()).toBe(asUtc(wall) - t.after * UNIT_MS.m);
      for (const at of [c.first, c.second]) expect(same(instantToWallTime(at, t.zone), wall)).toBe(true);
      expect(readWallTime(wall, t.zone).runs).toEqual([{ at: c.first, dst: 'fold_first' }]);
      expect(readWallTime(wall, t.zone, { gap: 'same_offset', fold: 'second' }).runs).toEqual([
        { at: c.second, dst: 'fold_second' },
      ]);
      expect(readWallTime(wall, t.zone, { gap: 'same_offset', fold: 'both' }).runs).toHaveLength(2);
    }
  });

  it('any instant, read as a wall time and back, is found again (exactly, or as one of a fold)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: FROM, max: TO }), (zone, ms) => {
        const at = new Date(ms - (ms % 1000));
        const c = wallTimeCandidates(instantToWallTime(at, zone), zone);
        if (c.kind === 'exact') return c.at.getTime() === at.getTime();
        if (c.kind === 'fold')
          return c.first.getTime() === at.getTime() || c.second.getTime() === at.getTime();
        return false;
      }),
      { numRuns: 2_000 },
    );
  });

  it('a daily series keeps its wall time in every zone, except where a gap moves or skips it, and never runs backwards', () => {
    const policies = [
      { gap: 'same_offset', fold: 'first' },
      { gap: 'shift_forward', fold: 'second' },
      { gap: 'skip', fold: 'both' },
    ] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.integer({ min: FROM, max: TO - 40 * UNIT_MS.d }),
        fc.constantFrom(...policies),
        (zone, ms, policy) => {
          const wall = { ...instantToWallTime(new Date(ms), zone), second: 0, millisecond: 0 };
          const anchor = readWallTime(wall, zone, policy).runs[0]?.at;
          if (!anchor) return true;
          const spec = {
            anchor,
            interval: { frequency: 1, unit: 'd' as const },
            timezone: zone,
            policy,
            wall,
          };
          let last = anchor.getTime() - 1;
          for (let i = 0; i < 40; i += 1) {
            const o = occurrenceAt(spec, i);
            for (const run of o.runs) {
              if (run.at.getTime() <= last) return false;
              last = run.at.getTime();
              const shown = instantToWallTime(run.at, zone);
              if (run.dst === 'gap_shifted' ? !(asUtc(shown) > asUtc(o.wall)) : !same(shown, o.wall))
                return false;
            }
            if (o.runs.length === 0 && policy.gap !== 'skip') return false;
          }
          return true;
        },
      ),
      { numRuns: 300 },
    );
  });
});
