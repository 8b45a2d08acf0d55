import { MAX_CLAIM_AHEAD_MS } from './due-horizon.js';

/**
 * How far a worker's clock may stray from the database's. A claim takes attempts due by its own clock plus its lead,
 * and a read of what is in flight looks that far ahead by the reader's clock (`MAX_CLAIM_AHEAD_MS`): two clocks
 * apart by more than the lead would let such a read miss a claim. Half the lead is the limit, leaving the other half
 * to the other process's own error.
 */
export const CLOCK_SKEW_LIMIT_MS = MAX_CLAIM_AHEAD_MS / 2;

/** One reading of the database's clock, between two of this process's (ms since the epoch). */
export interface ClockReading {
  sentAtMs: number;
  databaseMs: number;
  receivedAtMs: number;
}

/**
 * This process's clock minus the database's, taking the database's reading at the middle of the round trip, and how
 * uncertain that is (half the round trip).
 */
export function clockSkew(reading: ClockReading): { skewMs: number; uncertaintyMs: number } {
  const middle = (reading.sentAtMs + reading.receivedAtMs) / 2;
  return {
    skewMs: middle - reading.databaseMs,
    uncertaintyMs: (reading.receivedAtMs - reading.sentAtMs) / 2,
  };
}

/** Whether a reading shows the clocks apart by more than the limit, whatever the round trip's share. */
export function beyondSkewLimit(reading: ClockReading): boolean {
  const { skewMs, uncertaintyMs } = clockSkew(reading);
  return Math.abs(skewMs) - uncertaintyMs > CLOCK_SKEW_LIMIT_MS;
}
