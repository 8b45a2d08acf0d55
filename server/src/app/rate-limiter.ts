import {
  evaluate,
  RATE_LIMITS,
  type RateLimitName,
  type RateLimitRule,
  type RateLimitState,
  windowStart,
} from '../domain/rate-limit/policy.js';
import type { Sql } from '../persistence/db.js';
import { KEY_HOLDER_SQL, type KeyHolderRow } from './accounts.js';

/** Ends the insert of one hit per bucket: a window already counting adds one. */
const ADD_HIT = `on conflict (bucket, window_start) do update set hits = rate_limit_windows.hits + 1
  returning bucket, hits`;

/** The window each named limit counts in at `now`. */
function windowsOf(names: RateLimitName[], now: Date) {
  const starts = names.map((n) => windowStart(now, RATE_LIMITS[n].windowSeconds));
  const ends = names.map((n, i) => new Date(starts[i]!.getTime() + RATE_LIMITS[n].windowSeconds * 1000));
  return { starts, ends };
}

/** Counts hits in PostgreSQL, so a limit holds across every API process. */
export class RateLimiter {
  constructor(private readonly db: Sql) {}

  /** Counts one hit against every rule in one statement (one round trip however many rules apply). */
  async hit(rules: RateLimitRule[], now: Date = new Date()): Promise<RateLimitState[]> {
    if (rules.length === 0) return [];
    const buckets = rules.map((r) => `${r.name}:${r.subject}`);
    const { starts, ends } = windowsOf(
      rules.map((r) => r.name),
      now,
    );
    const rows = await this.db.query<{ bucket: string; hits: number }>(
      `insert into rate_limit_windows (bucket, window_start, hits, expires_at)
       select b, s, 1, e from unnest($1::text[], $2::timestamptz[], $3::timestamptz[]) as t(b, s, e)
       ${ADD_HIT}`,
      [buckets, starts, ends],
    );
    const hits = new Map(rows.map((r) => [r.bucket, r.hits]));
    return rules.map((r, i) => evaluate(r, hits.get(buckets[i]!) ?? 1, now));
  }

  /**
   * Finds the holder of an API key (by its hash) and counts the request against the named limits of that holder's
   * account, in one statement: every authenticated request costs one round trip for both. Nothing is counted for
   * an unknown or revoked key (answers null). `hits` answers the count in the current window of each name.
   */
  async hitAsKeyHolder(
    keyHash: string,
    names: RateLimitName[],
    now: Date = new Date(),
  ): Promise<{ holder: KeyHolderRow; hits: (name: RateLimitName) => number } | null> {
    const { starts, ends } = windowsOf(names, now);
    const [row] = await this.db.query<KeyHolderRow & { hits: Record<string, number> | null }>(
      `with holder as (${KEY_HOLDER_SQL}),
       counted as (
         insert into rate_limit_windows (bucket, window_start, hits, expires_at)
         select t.n || ':' || h.account_id, t.s, 1, t.e
           from holder h, unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) as t(n, s, e)
         ${ADD_HIT}
       )
       select h.*, (select json_object_agg(bucket, hits) from counted) as hits from holder h`,
      [keyHash, names, starts, ends],
    );
    if (!row) return null;
    const { hits, ...holder } = row;
    return { holder, hits: (name) => hits?.[`${name}:${holder.account_id}`] ?? 1 };
  }

  /** Drops finished windows; run periodically by workers. */
  async prune(now: Date = new Date()): Promise<number> {
    const rows = await this.db.query('delete from rate_limit_windows where expires_at < $1 returning 1', [
      now,
    ]);
    return rows.length;
  }
}
