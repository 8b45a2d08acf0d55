import type { CircuitSettings, DeliveryOutcome, ErrorClass } from '@sched/contract';
import {
  type CircuitEvent,
  type CircuitState,
  type CircuitTransition,
  circuitTransition,
} from '@sched/contract/machines';
import { parseDuration } from '../schedule/duration.js';

// The circuit breaker of one destination host (docs/destinations.md). Pure: time is a parameter, and the caller holds
// the host's row lock, applies the record answered and records the notice in the same transaction. Its states,
// events and transition table are the contract's (contract/src/machines/circuit.ts), shared with the console.
export {
  CIRCUIT_TRANSITIONS,
  type CircuitEvent,
  type CircuitNotice,
  type CircuitState,
  type CircuitTransition,
} from '@sched/contract/machines';

/** The breaker's defaults; a host's own settings override them one by one. */
export const CIRCUIT_DEFAULTS: Readonly<Required<CircuitSettings>> = Object.freeze({
  enabled: true,
  min_requests: 10,
  window: '5m',
  failure_rate: 0.7,
  open_for: '1m',
  disable_after: '5d',
});

/** `open_for` doubles with each failed probe up to this (or to `open_for` itself, when that is longer). */
export const OPEN_FOR_CAP_MS = 3_600_000;
/** `checkAt` when no further failure of the current window can reach the rate. */
const NEVER = 2_147_483_647;
/** Shares are compared with this slack, so 30% of 10 is 3 failures, not 3.0000000000000004. */
const EPSILON = 1e-9;
const atLeast = (count: number, share: number) => count >= share - EPSILON;
const ceil = (x: number) => Math.ceil(x - EPSILON);

/** The settings with the defaults filled in, durations in milliseconds. */
export interface Circuit {
  enabled: boolean;
  minRequests: number;
  windowMs: number;
  failureRate: number;
  openForMs: number;
  disableAfterMs: number;
}

export function circuitOf(settings: CircuitSettings | null | undefined): Circuit {
  const s = { ...CIRCUIT_DEFAULTS, ...(settings ?? {}) };
  const ms = (text: string, fallback: string) => parseDuration(text) ?? parseDuration(fallback)!;
  return {
    enabled: s.enabled,
    minRequests: s.min_requests,
    windowMs: ms(s.window, CIRCUIT_DEFAULTS.window),
    failureRate: s.failure_rate,
    openForMs: ms(s.open_for, CIRCUIT_DEFAULTS.open_for),
    disableAfterMs: ms(s.disable_after, CIRCUIT_DEFAULTS.disable_after),
  };
}

/** What is stored of one host's circuit (the `circuit_*` columns of `destinations`). */
export interface CircuitRecord {
  state: CircuitState;
  /** When the outage began: the first opening since the circuit was last closed. */
  openedAt: Date | null;
  /** While open: when it turns half-open. */
  nextProbeAt: Date | null;
  /** Failed probes since the outage began: `open_for` doubles with each. */
  reopens: number;
  /** While half-open: until when the probe in flight holds its slot (its lease; a dead worker's probe frees it). */
  probeUntil: Date | null;
  /** The failure window: it opens with a failed attempt and counts the failures recorded in it. */
  windowStart: Date | null;
  windowFailures: number;
  /** The failure count at which the rate is next worth computing (none below it can reach `failure_rate`). */
  checkAt: number;
}

export const CLOSED_CIRCUIT: Readonly<CircuitRecord> = Object.freeze({
  state: 'closed',
  openedAt: null,
  nextProbeAt: null,
  reopens: 0,
  probeUntil: null,
  windowStart: null,
  windowFailures: 0,
  checkAt: 0,
});

export interface CircuitStep {
  record: CircuitRecord;
  /** Set when the state changed. */
  transition: CircuitTransition | null;
}

const unchanged = (record: CircuitRecord): CircuitStep => ({ record, transition: null });

/** How long the circuit stays open after `reopens` failed probes. */
export function openForMs(circuit: Circuit, reopens: number): number {
  const cap = Math.max(circuit.openForMs, OPEN_FOR_CAP_MS);
  return Math.min(cap, circuit.openForMs * 2 ** Math.min(reopens, 40));
}

/** Applies `event` through the table; null when the table has no such change from the record's state. */
export function step(
  record: CircuitRecord,
  event: CircuitEvent,
  circuit: Circuit,
  now: Date,
): CircuitStep | null {
  const t = circuitTransition(record.state, event);
  if (!t) return null;
  const at = (ms: number) => new Date(now.getTime() + ms);
  switch (t.to) {
    case 'closed':
      return { record: { ...CLOSED_CIRCUIT }, transition: t };
    case 'open': {
      const reopens = t.from === 'closed' ? 0 : record.reopens + 1;
      return {
        record: {
          ...record,
          state: 'open',
          openedAt: t.from === 'closed' ? now : (record.openedAt ?? now),
          nextProbeAt: at(openForMs(circuit, reopens)),
          reopens,
          probeUntil: null,
          windowStart: null,
          windowFailures: 0,
          checkAt: 0,
        },
        transition: t,
      };
    }
    case 'half_open':
    case 'disabled':
      return { record: { ...record, state: t.to, nextProbeAt: null, probeUntil: null }, transition: t };
  }
}

/** The record as time has moved it: an open circuit whose `open_for` has passed is half-open. */
export function circuitAt(record: CircuitRecord, circuit: Circuit, now: Date): CircuitStep {
  if (record.state === 'open' && record.nextProbeAt !== null && now >= record.nextProbeAt)
    return step(record, 'probe_due', circuit, now)!;
  return unchanged(record);
}

export type Admission = 'pass' | 'probe' | 'hold';

/**
 * Whether a due delivery to the host may start now: `pass` (closed, or the breaker is off), `probe` (half-open and
 * the probe slot was free: it is taken until `probeLease`), or `hold` (open, disabled, or the probe slot is taken).
 * Half-open lets one probe through at a time: the others wait for its answer, which decides for all of them.
 */
export function admit(
  record: CircuitRecord,
  circuit: Circuit,
  now: Date,
  probeLease: Date,
): CircuitStep & { admission: Admission } {
  if (!circuit.enabled || record.state === 'closed') return { ...unchanged(record), admission: 'pass' };
  const current = circuitAt(record, circuit, now);
  if (current.record.state !== 'half_open') return { ...current, admission: 'hold' };
  const busy = current.record.probeUntil !== null && current.record.probeUntil > now;
  if (busy) return { ...current, admission: 'hold' };
  return {
    record: { ...current.record, probeUntil: probeLease },
    transition: current.transition,
    admission: 'probe',
  };
}

/** What one attempt says of the host's health: a retryable failure is a failure; an answer is a sign of life. */
export type CircuitSignal = 'failure' | 'success';

/**
 * A retryable failure (5xx, 429, timeout, connection error) counts; any answer otherwise (2xx, and 4xx, which a
 * working receiver sends) is a success. An attempt the destination policy blocked never reached the host: null.
 */
export function signalOf(outcome: DeliveryOutcome, errorClass: ErrorClass | null): CircuitSignal | null {
  if (errorClass === 'blocked') return null;
  return outcome === 'retryable' ? 'failure' : 'success';
}

/**
 * Counts a failed attempt (not a probe) of a closed circuit in its window, opening a new window at the attempt's
 * start when none is running. `check` is true when the failure rate is worth computing now (`judge`).
 */
export function countFailure(
  record: CircuitRecord,
  circuit: Circuit,
  startedAt: Date,
  now: Date,
): { record: CircuitRecord; check: boolean } {
  if (!circuit.enabled || record.state !== 'closed') return { record, check: false };
  const running =
    record.windowStart !== null && now.getTime() - record.windowStart.getTime() < circuit.windowMs;
  const windowStart = running ? record.windowStart! : startedAt;
  const windowFailures = running ? record.windowFailures + 1 : 1;
  const checkAt = running ? record.checkAt : ceil(circuit.failureRate * circuit.minRequests);
  return { record: { ...record, windowStart, windowFailures, checkAt }, check: windowFailures >= checkAt };
}

/** The most attempts of the window worth reading: past it, the failures counted are below `failure_rate`. */
export function scanLimit(record: CircuitRecord, circuit: Circuit): number {
  return Math.floor(record.windowFailures / circuit.failureRate) + 1;
}

/**
 * The rule itself, once the attempts of the window are read (at most `scanLimit`; `more` when the read stopped
 * there): trips the circuit when at least `min_requests` attempts failed at `failure_rate` or more. Otherwise it
 * sets when to look again: the successes of a window only grow, so no failure count below
 * `rate × successes / (1 - rate)` can reach the rate.
 */
export function judge(
  record: CircuitRecord,
  circuit: Circuit,
  now: Date,
  read: { attempts: number; failures: number; more: boolean },
): CircuitStep {
  const { attempts, failures, more } = read;
  if (!more && attempts >= circuit.minRequests && atLeast(failures, circuit.failureRate * attempts))
    return step(record, 'trip', circuit, now) ?? unchanged(record);
  const r = circuit.failureRate;
  const successes = Math.max(0, attempts - failures);
  const bySuccesses = r >= 1 ? (successes > 0 ? NEVER : 0) : ceil((r * successes) / (1 - r));
  const checkAt = Math.min(
    NEVER,
    Math.max(record.windowFailures + 1, ceil(r * circuit.minRequests), bySuccesses),
  );
  return unchanged({ ...record, checkAt });
}

/**
 * A probe's answer: success closes the circuit; failure reopens it for twice as long, or disables it when the
 * outage has lasted `disable_after`. A circuit no longer half-open (enabled meanwhile) is left as it is.
 */
export function settleProbe(
  record: CircuitRecord,
  circuit: Circuit,
  now: Date,
  signal: CircuitSignal,
): CircuitStep {
  if (record.state !== 'half_open') return unchanged(record);
  if (signal === 'success') return step(record, 'probe_succeeded', circuit, now)!;
  const outage = now.getTime() - (record.openedAt ?? now).getTime();
  return step(record, outage >= circuit.disableAfterMs ? 'give_up' : 'probe_failed', circuit, now)!;
}
