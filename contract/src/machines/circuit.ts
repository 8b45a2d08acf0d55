import type { CIRCUIT_STATES } from '../schemas/destination.js';

/**
 * The states of one destination host's circuit breaker (docs/destinations.md) and the changes between them, as
 * data: the server's breaker (server/src/domain/destinations/circuit.ts) applies them, and the console offers its
 * Enable button by the same table.
 *
 * Glossary of events:
 * - trip: at least `min_requests` attempts in the window, of which `failure_rate` or more failed.
 * - probe_due: `open_for` has passed since the circuit opened (or reopened): the next delivery is a probe.
 * - probe_succeeded / probe_failed: what the probe's attempt came to.
 * - give_up: a probe failed `disable_after` or more after the circuit first opened, with no success since.
 * - enable: `POST /v1/destinations/{host}/enable`.
 * - turn_off: the host's settings turned the breaker off (`circuit.enabled: false`).
 */

export type CircuitState = (typeof CIRCUIT_STATES)[number];
export type CircuitEvent =
  | 'trip'
  | 'probe_due'
  | 'probe_succeeded'
  | 'probe_failed'
  | 'give_up'
  | 'enable'
  | 'turn_off';
/** The operator events a change records (app/ports.ts OperatorEventType). */
export type CircuitNotice =
  | 'destination.circuit_opened'
  | 'destination.circuit_closed'
  | 'destination.disabled';

export interface CircuitTransition {
  from: CircuitState;
  event: CircuitEvent;
  to: CircuitState;
  /** The operator event recorded with the change; a reopening after a failed probe is the same outage: none. */
  notice: CircuitNotice | null;
}

const OPENED: CircuitNotice = 'destination.circuit_opened';
const CLOSED: CircuitNotice = 'destination.circuit_closed';
const DISABLED: CircuitNotice = 'destination.disabled';

/** Every allowed change; anything absent is forbidden. */
export const CIRCUIT_TRANSITIONS: readonly CircuitTransition[] = Object.freeze(
  (
    [
      ['closed', 'trip', 'open', OPENED],
      ['open', 'probe_due', 'half_open', null],
      ['half_open', 'probe_succeeded', 'closed', CLOSED],
      ['half_open', 'probe_failed', 'open', null],
      ['half_open', 'give_up', 'disabled', DISABLED],
      ['open', 'enable', 'closed', CLOSED],
      ['half_open', 'enable', 'closed', CLOSED],
      ['disabled', 'enable', 'closed', CLOSED],
      ['open', 'turn_off', 'closed', CLOSED],
      ['half_open', 'turn_off', 'closed', CLOSED],
      ['disabled', 'turn_off', 'closed', CLOSED],
    ] as const
  ).map(([from, event, to, notice]) => Object.freeze({ from, event, to, notice })),
);

const TABLE: ReadonlyMap<string, CircuitTransition> = new Map(
  CIRCUIT_TRANSITIONS.map((t) => [`${t.from}:${t.event}`, t]),
);

/** The table's row for `event` from `from`, or null when the table has no such change. */
export function circuitTransition(from: CircuitState, event: CircuitEvent): CircuitTransition | null {
  return TABLE.get(`${from}:${event}`) ?? null;
}
