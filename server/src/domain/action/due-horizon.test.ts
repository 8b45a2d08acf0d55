import { describe, expect, it } from 'vitest';
import { dayStart, dueIndexBound, dueIndexPlan, dueQueryHorizon } from './due-horizon.js';

const at = (iso: string) => new Date(iso);

describe('the due index horizon', () => {
  it('reaches three UTC days past the start of the day it is built; queries ask for two', () => {
    const now = at('2026-11-28T23:59:59.999Z');
    expect(dayStart(now)).toEqual(at('2026-11-28T00:00:00Z'));
    expect(dueIndexBound(now)).toEqual(at('2026-12-01T00:00:00Z'));
    expect(dueQueryHorizon(now)).toEqual(at('2026-11-30T00:00:00Z'));
    // A minute later it is the next day: the query horizon equals yesterday's bound, so yesterday's index serves it.
    const next = at('2026-11-29T00:00:30Z');
    expect(dueQueryHorizon(next)).toEqual(dueIndexBound(now));
  });

  it('builds today’s index once, then drops the ones no query can use and the unbounded one', () => {
    const now = at('2026-11-29T10:00:00Z');
    expect(dueIndexPlan(now, { bounded: [], unbounded: true })).toEqual({
      build: at('2026-12-02T00:00:00Z'),
      drop: [],
      dropUnbounded: true,
    });
    const plan = dueIndexPlan(now, {
      bounded: [
        { bound: at('2026-11-30T00:00:00Z'), valid: true }, // built two days ago: before the horizon
        { bound: at('2026-12-01T00:00:00Z'), valid: true }, // yesterday's: still serves today's queries
        { bound: at('2026-12-02T00:00:00Z'), valid: true }, // today's
      ],
      unbounded: false,
    });
    expect(plan).toEqual({ build: null, drop: [at('2026-11-30T00:00:00Z')], dropUnbounded: false });
  });

  it('rebuilds an index a crash left invalid, and drops other invalid ones', () => {
    const now = at('2026-11-29T10:00:00Z');
    const plan = dueIndexPlan(now, {
      bounded: [
        { bound: at('2026-12-01T00:00:00Z'), valid: false },
        { bound: at('2026-12-02T00:00:00Z'), valid: false },
      ],
      unbounded: false,
    });
    // The invalid index of today's bound is replaced by the build itself, not dropped beside it.
    expect(plan).toEqual({
      build: at('2026-12-02T00:00:00Z'),
      drop: [at('2026-12-01T00:00:00Z')],
      dropUnbounded: false,
    });
  });

  it('keeps an index with a later bound (a clock set back) and builds the day’s own', () => {
    const plan = dueIndexPlan(at('2026-11-29T10:00:00Z'), {
      bounded: [{ bound: at('2026-12-09T00:00:00Z'), valid: true }],
      unbounded: false,
    });
    expect(plan).toEqual({ build: at('2026-12-02T00:00:00Z'), drop: [], dropUnbounded: false });
  });
});
