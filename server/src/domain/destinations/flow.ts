/**
 * Flow control of one destination host: at most `parallelism` requests in flight and `rate` started per
 * `period`, across every worker. Pure: the caller holds the host's row lock, counts what is in flight and applies
 * the answer (the new rate window, or when to try again). A delivery over a limit waits; it is never refused.
 */

export type FlowPeriod = '1s' | '1m' | '1h';

export interface FlowLimits {
  rate?: number | undefined;
  period?: FlowPeriod | undefined;
  parallelism?: number | undefined;
}

export interface FlowState {
  /** Requests to the host in flight now, not counting the one asking. */
  inFlight: number;
  /** The current rate window: when it began and how many requests it has started. */
  windowStart: Date | null;
  windowCount: number;
}

export type FlowDecision =
  | { admit: true; windowStart: Date; windowCount: number }
  | { admit: false; retryAt: Date; reason: 'parallelism' | 'rate' };

const PERIOD_MS: Record<FlowPeriod, number> = { '1s': 1_000, '1m': 60_000, '1h': 3_600_000 };

/** A request waiting for a free slot looks again after this long (a slot frees when any request ends). */
export const SLOT_RETRY_MS = 200;

export function periodMs(period: FlowPeriod | undefined): number {
  return PERIOD_MS[period ?? '1s'];
}

export function decideFlow(limits: FlowLimits, state: FlowState, now: Date): FlowDecision {
  if (limits.parallelism !== undefined && state.inFlight >= limits.parallelism)
    return { admit: false, retryAt: new Date(now.getTime() + SLOT_RETRY_MS), reason: 'parallelism' };
  const length = periodMs(limits.period);
  const current =
    state.windowStart !== null &&
    now.getTime() - state.windowStart.getTime() < length &&
    now >= state.windowStart;
  const windowStart = current ? state.windowStart! : now;
  const windowCount = current ? state.windowCount : 0;
  if (limits.rate !== undefined && windowCount >= limits.rate)
    return { admit: false, retryAt: new Date(windowStart.getTime() + length), reason: 'rate' };
  return { admit: true, windowStart, windowCount: windowCount + 1 };
}
