import type { Total } from '../persistence/database.js';

/** A page request as every list endpoint takes it (`page` from 1). */
export interface PageQuery {
  page: number;
  per_page: number;
}

export interface Page<T> {
  data: T[];
  meta: {
    current_page: number;
    last_page: number;
    total: number;
    /** Only when false: the spec's lists have no such member, so a counted total leaves it out. */
    total_exact?: false;
    per_page: number;
  };
}

/** The rows a page request covers, for the list statement. */
export function pageWindow(q: PageQuery): { limit: number; offset: number } {
  return { limit: q.per_page, offset: (q.page - 1) * q.per_page };
}

/** The list answer: `{ data, meta }`; an empty list still has one (empty) last page. */
export function pageOf<T>(data: T[], { total, exact = true }: Total, q: PageQuery): Page<T> {
  return {
    data,
    meta: {
      current_page: q.page,
      last_page: Math.max(1, Math.ceil(total / q.per_page)),
      total,
      ...(exact ? {} : { total_exact: false as const }),
      per_page: q.per_page,
    },
  };
}

/** A keyset position in a list ordered by a time and an id, newest first: rows strictly older come next. */
export interface Keyset {
  at: Date;
  id: string;
}

/** The opaque cursor of a keyset (`<ms>_<id>`, as the contract's AttemptCursor reads it). */
export function keysetCursor(k: Keyset): string {
  return `${k.at.getTime()}_${k.id}`;
}

/** A cursor read back; null when it was not written by `keysetCursor`. */
export function parseKeysetCursor(cursor: string): Keyset | null {
  const m = /^(\d{1,15})_([0-9a-f-]{36})$/.exec(cursor);
  if (!m) return null;
  const at = new Date(Number(m[1]));
  return Number.isNaN(at.getTime()) ? null : { at, id: m[2]! };
}
