import type { RouteRateLimit } from '@sched/contract';

/** The rate limits (docs/api.md). The numbers are defaults: operators scale them per account and globally. */
export const RATE_LIMITS = Object.freeze({
  authenticated: { limit: 100, windowSeconds: 60 },
  unauthenticated: { limit: 20, windowSeconds: 60 },
  createAction: { limit: 100, windowSeconds: 3600 },
  reminderResponse: { limit: 10, windowSeconds: 60 },
  /** Every response link an IP opens, counted before the token is looked at (random tokens cost rows). */
  reminderResponsePerIp: { limit: 60, windowSeconds: 60 },
  /** /healthz, /readyz, /metrics per IP, counted in process memory: probes must not write to the database. */
  operational: { limit: 120, windowSeconds: 60 },
  triggerPerToken: { limit: 60, windowSeconds: 60 },
  triggerPerIp: { limit: 120, windowSeconds: 60 },
  /** Per template, set by its owner so a trigger URL cannot spend the account's allowances; these are the defaults (contract TRIGGER_DEFAULTS). UTC hours and days. */
  templateTriggersPerHour: { limit: 20, windowSeconds: 3600 },
  templateTriggersPerDay: { limit: 100, windowSeconds: 86_400 },
  /** `POST /v1/alert-rules/{id}/test` per rule: each test sends on every channel, so it must not be a flood. */
  alertRuleTests: { limit: 1, windowSeconds: 60 },
  /** `POST /v1/destinations/{host}/test` per host: one request to someone's server, now, so a few seconds apart. */
  destinationTests: { limit: 1, windowSeconds: 5 },
});
export type RateLimitName = keyof typeof RATE_LIMITS;

/**
 * Whom each limit a route may declare (`RouteMeta.rateLimits`) counts: the key holder's account, the client IP, or the
 * token in the route's path (hashed).
 */
export const ROUTE_LIMIT_SUBJECTS = Object.freeze({
  createAction: 'account',
  triggerPerIp: 'ip',
  triggerPerToken: 'token',
  reminderResponsePerIp: 'ip',
  reminderResponse: 'token',
} as const satisfies Record<RouteRateLimit, 'account' | 'ip' | 'token'>);

export interface RateLimitRule {
  name: RateLimitName;
  /** Who is counted: an account id, an IP, a token hash. */
  subject: string;
  limit: number;
  windowSeconds: number;
}

export function rule(name: RateLimitName, subject: string, factor: number): RateLimitRule {
  const base = RATE_LIMITS[name];
  return {
    name,
    subject,
    limit: Math.max(1, Math.round(base.limit * factor)),
    windowSeconds: base.windowSeconds,
  };
}

/** Fixed windows aligned to the epoch, so every process agrees on where a window starts. */
export function windowStart(now: Date, windowSeconds: number): Date {
  const ms = windowSeconds * 1000;
  return new Date(Math.floor(now.getTime() / ms) * ms);
}

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  reset: number;
  allowed: boolean;
  retryAfterSeconds: number;
}

export function evaluate(r: RateLimitRule, hits: number, now: Date): RateLimitState {
  const start = windowStart(now, r.windowSeconds);
  const resetMs = start.getTime() + r.windowSeconds * 1000;
  return {
    limit: r.limit,
    remaining: Math.max(0, r.limit - hits),
    reset: Math.ceil(resetMs / 1000),
    allowed: hits <= r.limit,
    retryAfterSeconds: Math.max(1, Math.ceil((resetMs - now.getTime()) / 1000)),
  };
}

/** Headers show the tightest of the limits a request was counted against. */
export function tightest(states: RateLimitState[]): RateLimitState {
  return states.reduce((a, b) => {
    if (a.allowed !== b.allowed) return a.allowed ? b : a;
    return b.remaining < a.remaining ? b : a;
  });
}
