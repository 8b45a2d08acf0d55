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

  async hit(rules: RateLimitRule[], now: Date = new Date()): Promise<RateLimitState[]> {
    const states: RateLimitState[] = [];
    for (const r of rules) {
      const start = windowStart(now, r.windowSeconds);
      const [row] = await this.db.query<{ hits: number }>(
        `insert into rate_limit_windows (bucket, window_start, hits, expires_at) values ($1, $2, 1, $3)
         on conflict (bucket, window_start) do update set hits = rate_limit_windows.hits + 1
         returning hits`,
        [`${r.name}:${r.subject}`, start, new Date(start.getTime() + r.windowSeconds * 1000)],
      );
      states.push(evaluate(r, row!.hits, now));
    }
    return states;
  }

  /** Drops finished windows; run periodically by workers. */
  async prune(now: Date = new Date()): Promise<number> {
    const rows = await this.db.query('delete from rate_limit_windows where expires_at < $1 returning 1', [
      now,
    ]);
    return rows.length;
  }
}
