import type { Calendar, CalendarCreate, CalendarDays, CalendarUpdate } from '@sched/contract';
import { collect, paginate } from './pagination.js';
import { callArgs, type RawClient } from './raw.js';
import type { CallOptions } from './transport.js';
import type { Page } from './types.js';
import { unwrap } from './unwrap.js';

export interface CalendarListQuery {
  page?: number;
  per_page?: number;
}

/**
 * `calendars.*`: closed days (the owner's dates and a country's public holidays) that delivery windows and quiet
 * hours name as `calendar`. Built-in `holidays:US` style references need no calendar.
 */
export interface CalendarsApi {
  create(body: CalendarCreate, options?: CallOptions): Promise<Calendar>;
  list(query?: CalendarListQuery, options?: CallOptions): Promise<Page<Calendar>>;
  /** Every calendar across all pages, fetched lazily: `for await (const c of sched.calendars.iterate())`. */
  iterate(query?: CalendarListQuery, options?: CallOptions): AsyncGenerator<Calendar, void, undefined>;
  listAll(query?: CalendarListQuery, options?: CallOptions): Promise<Calendar[]>;
  get(id: string, options?: CallOptions): Promise<Calendar>;
  /** Only the given fields change; `holidays: null` removes the public holidays. */
  update(id: string, body: CalendarUpdate, options?: CallOptions): Promise<Calendar>;
  delete(id: string, options?: CallOptions): Promise<void>;
  /** The closed days from `from` to `to` (`YYYY-MM-DD`, inclusive), each with where it comes from. */
  days(id: string, range: { from: string; to: string }, options?: CallOptions): Promise<CalendarDays>;
}

export function calendarsApi(raw: RawClient): CalendarsApi {
  const list = async (query: CalendarListQuery = {}, o?: CallOptions): Promise<Page<Calendar>> =>
    unwrap(await raw.calendars.list({ query, ...callArgs(o) }), 200);
  const byPage = (o?: CallOptions) => (q: CalendarListQuery) => list(q, o);
  return {
    create: async (body, o) => unwrap(await raw.calendars.create({ body, ...callArgs(o) }), 201).data,
    list,
    iterate: (query = {}, o) => paginate(byPage(o), query),
    listAll: (query = {}, o) => collect(paginate(byPage(o), query)),
    get: async (id, o) => unwrap(await raw.calendars.get({ params: { id }, ...callArgs(o) }), 200).data,
    update: async (id, body, o) =>
      unwrap(await raw.calendars.update({ params: { id }, body, ...callArgs(o) }), 200).data,
    delete: async (id, o) => {
      unwrap(await raw.calendars.delete({ params: { id }, ...callArgs(o) }), 204);
    },
    days: async (id, range, o) =>
      unwrap(await raw.calendars.days({ params: { id }, query: range, ...callArgs(o) }), 200),
  };
}
