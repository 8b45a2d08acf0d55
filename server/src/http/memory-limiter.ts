import {
  evaluate,
  type RateLimitRule,
  type RateLimitState,
  windowStart,
} from '../domain/rate-limit/policy.js';

/**
 * Fixed-window counts kept in this process, for the operational endpoints (/healthz, /readyz, /metrics): a probe
 * every few seconds must neither write to the database nor fail when the database is down. Each API process
 * counts on its own, so the effective limit is the limit times the number of processes.
 */
export function createMemoryLimiter(maxBuckets = 10_000) {
  const windows = new Map<string, { start: number; hits: number }>();
  return {
    hit(rule: RateLimitRule, now: Date): RateLimitState {
      const start = windowStart(now, rule.windowSeconds).getTime();
      const key = `${rule.name}:${rule.subject}`;
      const current = windows.get(key);
      const hits = current && current.start === start ? current.hits + 1 : 1;
      if (!current && windows.size >= maxBuckets) {
        // Forget finished windows first; a flood of distinct IPs then restarts counting rather than growing memory.
        for (const [k, w] of windows) if (w.start !== start) windows.delete(k);
        if (windows.size >= maxBuckets) windows.clear();
      }
      windows.set(key, { start, hits });
      return evaluate(rule, hits, now);
    },
  };
}
