import { createRequire } from 'node:module';
import type Holidays from 'date-holidays';

/**
 * Public holidays from the `date-holidays` package: its rules for about 200 countries and their regions ship inside
 * the package and are computed for any year, offline. They change only with the package: upgrading it (`pnpm --filter
 * @sched/server up date-holidays`) is how new or moved holidays reach sched (docs/windows.md).
 *
 * A day counts as closed when the package types it `public` (substitute days included: 2027-07-05 is the observed
 * Independence Day in the US); observances, optional and bank-only days do not close a window.
 */

// The package and its rules are loaded by the first question about a holiday, synchronously (the calendar's rules
// are synchronous): loading them costs a start about a third of a second of CPU that most servers never need.
let holidaysPackage: typeof Holidays | undefined;
const holidayRules = (): typeof Holidays =>
  (holidaysPackage ??= createRequire(import.meta.url)('date-holidays') as typeof Holidays);

export interface Holiday {
  date: string;
  name: string;
}

const calendars = new Map<string, Holidays>();
const years = new Map<string, Holiday[]>();
const known = new Map<string, boolean>();

function split(region: string): [string, string | undefined] {
  const [country, sub] = region.toUpperCase().split('-', 2);
  return [country!, sub];
}

/** Whether `<country>[-<region>]` names data the package has (`US`, `DE-BY`; case-insensitive). */
export function isKnownHolidayRegion(region: string): boolean {
  const key = region.toUpperCase();
  let ok = known.get(key);
  if (ok === undefined) {
    const [country, sub] = split(key);
    const all = new (holidayRules())();
    const countries = all.getCountries() ?? {};
    ok = country in countries && (sub === undefined || sub in (all.getStates(country) ?? {}));
    if (known.size < 1000) known.set(key, ok);
  }
  return ok;
}

/** The public holidays of a known region in one year, in order. */
export function holidaysIn(region: string, year: number): Holiday[] {
  const key = `${region.toUpperCase()}:${year}`;
  let list = years.get(key);
  if (!list) {
    const [country, sub] = split(region);
    let h = calendars.get(region.toUpperCase());
    if (!h) {
      const Rules = holidayRules();
      h = sub ? new Rules(country, sub) : new Rules(country);
      calendars.set(region.toUpperCase(), h);
    }
    const seen = new Set<string>();
    list = [];
    for (const x of h.getHolidays(year) ?? []) {
      const date = x.date.slice(0, 10);
      if (x.type !== 'public' || seen.has(date)) continue;
      seen.add(date);
      list.push({ date, name: x.name });
    }
    list.sort((a, b) => a.date.localeCompare(b.date));
    if (years.size < 5000) years.set(key, list);
  }
  return list;
}

/** Whether `date` (`YYYY-MM-DD`) is a public holiday of the region. */
export function isHoliday(region: string, date: string): boolean {
  return holidaysIn(region, Number(date.slice(0, 4))).some((h) => h.date === date);
}
