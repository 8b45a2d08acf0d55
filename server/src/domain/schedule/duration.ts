/**
 * The one duration grammar of the service: `<integer><unit>` with unit `s`, `m`, `h`, `d` or `w`
 * (`30s`, `10m`, `4h`, `7d`, `1w`). Used by `schedule.wait`, `gate.timeout` and the CLI's `--in`.
 *
 * Decided rules: no whitespace, no sign, no fractions, no upper-case units (`M` means months
 * only in recurrence, so accepting `10M` here would be a trap); `d` is exactly 24 h and `w`
 * exactly 7 d of elapsed time, not calendar days; the value must be > 0 and at most 10 years.
 */

const DURATION_UNITS = Object.freeze(['s', 'm', 'h', 'd', 'w'] as const);
export type DurationUnit = (typeof DURATION_UNITS)[number];

export const UNIT_MS: Readonly<Record<DurationUnit, number>> = Object.freeze({
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
});

/** Longest accepted duration: anything longer is a typo, not a plan. */
export const MAX_DURATION_MS = 3_652 * UNIT_MS.d;

const GRAMMAR = /^(\d{1,15})([smhdw])$/;

/** Milliseconds for a valid duration, `null` otherwise. */
export function parseDuration(text: string): number | null {
  const match = GRAMMAR.exec(text);
  if (!match) return null;
  const amount = Number(match[1]);
  const ms = amount * UNIT_MS[match[2] as DurationUnit];
  if (amount <= 0 || ms > MAX_DURATION_MS) return null;
  return ms;
}

/**
 * The shortest grammar form of a duration, using the largest unit that divides it exactly
 * (`90_000` gives `90s`, `604_800_000` gives `1w`). Sub-second parts are rounded to whole
 * seconds because the grammar has no smaller unit.
 */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1_000);
  if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError(`Cannot format duration ${ms}`);
  for (const unit of ['w', 'd', 'h', 'm'] as const) {
    const size = UNIT_MS[unit] / 1_000;
    if (seconds > 0 && seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}
