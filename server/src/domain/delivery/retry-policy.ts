import type { RetryStrategy } from '@sched/contract';
import type { DeliveryOutcome } from './outcome.js';

/**
 * Waits between delivery attempts. `attemptsMade` is the number of attempts already made;
 * the result is the wait before the next one. Real milliseconds: SCHED_TIME_SCALE is applied by the caller.
 *
 * - exponential: before attempts 1..5 wait 0, 1 min, 5 min, 15 min, 1 h; from attempt 6 on, 4 h each.
 * - linear: 300 s x attemptsMade (so 5 min, 10 min, 15 min...).
 * - The strategy's wait moves by up to RETRY_JITTER either way, drawn from a random source, so the actions that
 *   failed against one host together do not all retry at the same instant (svix does the same).
 * - A `Retry-After` asking for longer than the strategy wins, capped at 24 h so a hostile or broken header
 *   cannot park an action for ever; a shorter one is ignored (the strategy protects the receiver). The receiver
 *   named its time, so it is not jittered.
 */

/** A random number in [0, 1), as Math.random gives: a parameter, so the rules stay pure and tests deterministic. */
export type RandomSource = () => number;

/** How far a retry wait moves either way: ±10 %. */
export const RETRY_JITTER = 0.1;

/** `waitMs` moved by up to RETRY_JITTER either way (a random of 0.5 leaves it as it is). */
export function jitter(waitMs: number, random: RandomSource): number {
  return Math.round(waitMs * (1 + RETRY_JITTER * (2 * random() - 1)));
}

/** Index i = wait before attempt i + 1. */
export const EXPONENTIAL_WAITS_MS = Object.freeze([0, 60_000, 300_000, 900_000, 3_600_000] as const);
const EXPONENTIAL_LATE_WAIT_MS = 4 * 3_600_000;
const LINEAR_STEP_MS = 300_000;
const RETRY_AFTER_CAP_MS = 24 * 3_600_000;

/** Callbacks: 3 attempts in all, immediately, then after 1 and 5 minutes (the exponential start). */
export const CALLBACK_MAX_ATTEMPTS = 3;

/** How long a callback (and an alert to a webhook, sent alike) waits for its answer. */
export const CALLBACK_TIMEOUT_MS = 30_000;

export function retryDelayMs(
  strategy: RetryStrategy,
  attemptsMade: number,
  retryAfterMs: number | null | undefined,
  /** The jitter's source (the caller's: this module stays pure); `() => 0.5` gives the strategy's wait exactly. */
  random: RandomSource,
): number {
  const made = Math.max(0, Math.floor(attemptsMade));
  const computed =
    strategy === 'linear' ? LINEAR_STEP_MS * made : (EXPONENTIAL_WAITS_MS[made] ?? EXPONENTIAL_LATE_WAIT_MS);
  if (retryAfterMs == null || !(retryAfterMs > computed)) return jitter(computed, random);
  return Math.max(computed, Math.min(retryAfterMs, RETRY_AFTER_CAP_MS));
}

/**
 * The wait before a callback's next attempt, after `attemptsMade` (3 attempts in all: now, +1 min, +5 min, the
 * exponential start), jittered like an action's retry.
 */
export function callbackRetryDelayMs(attemptsMade: number, random: RandomSource): number {
  return jitter(
    EXPONENTIAL_WAITS_MS[attemptsMade] ?? EXPONENTIAL_WAITS_MS[EXPONENTIAL_WAITS_MS.length - 1]!,
    random,
  );
}

// The three HTTP-date forms all start with a day name ("Sun, 06 Nov 1994 ...", "Sunday, 06-Nov-94 ...",
// "Sun Nov  6 ..."); requiring it keeps Date.parse from reading "12" or "-5" as dates.
const HTTP_DATE_RE = /^[A-Za-z]{3,9},? /;

/**
 * Milliseconds a `Retry-After` header asks to wait: delta-seconds (a decimal is tolerated) or an HTTP date
 * (a past date gives 0). `null` when absent or unreadable.
 */
export function parseRetryAfter(headerValue: string | string[] | null | undefined, now: Date): number | null {
  const raw = Array.isArray(headerValue) ? headerValue[0] : headerValue;
  if (raw == null) return null;
  const value = raw.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1_000);
  if (!HTTP_DATE_RE.test(value)) return null;
  const when = Date.parse(value);
  if (Number.isNaN(when)) return null;
  return Math.max(0, when - now.getTime());
}

/** `max_attempts` counts the first attempt, so a retry is due only while attemptsMade < maxAttempts. */
export function shouldRetry(outcome: DeliveryOutcome, attemptsMade: number, maxAttempts: number): boolean {
  return outcome === 'retryable' && attemptsMade < maxAttempts;
}
