import {
  evaluate,
  type RateLimitRule,
  type RateLimitState,
  windowStart,
} from '../domain/rate-limit/policy.js';
import type { Sql } from '../persistence/db.js';

/** Counts hits in PostgreSQL, so a limit holds across every API process. */
export class RateLimiter {
  constructor(private readonly db: Sql) {}

  /** Counts one hit against every rule in one statement (one round trip however many rules apply). */
  async hit(rules: RateLimitRule[], now: Date = new Date()): Promise<RateLimitState[]> {
    if (rules.length === 0) return [];
    const buckets = rules.map((r) => `${r.name}:${r.subject}`);
    const starts = rules.map((r) => windowStart(now, r.windowSeconds));
    const ends = rules.map((r, i) => new Date(starts[i]!.getTime() + r.windowSeconds * 1000));
    const rows = await this.db.query<{ bucket: string; hits: number }>(
      `insert into rate_limit_windows (bucket, window_start, hits, expires_at)
       select b, s, 1, e from unnest($1::text[], $2::timestamptz[], $3::timestamptz[]) as t(b, s, e)
       on conflict (bucket, window_start) do update set hits = rate_limit_windows.hits + 1
       returning bucket, hits`,
      [buckets, starts, ends],
    );
    const hits = new Map(rows.map((r) => [r.bucket, r.hits]));
    return rules.map((r, i) => evaluate(r, hits.get(buckets[i]!) ?? 1, now));
  }

  /** Drops finished windows; run periodically by workers. */
  async prune(now: Date = new Date()): Promise<number> {
    const rows = await this.db.query('delete from rate_limit_windows where expires_at < $1 returning 1', [
      now,
    ]);
    return rows.length;
  }
}
