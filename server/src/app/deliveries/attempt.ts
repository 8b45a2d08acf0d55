import type { HoldReason } from '@sched/contract';
import type { DeliveryOutcome } from '../../domain/delivery/outcome.js';
import type { RandomSource } from '../../domain/delivery/retry-policy.js';
import type { ActionRow } from '../../persistence/actions.js';
import type { AttemptRecord } from '../../persistence/deliveries.js';
import type { AttemptRow } from '../../persistence/delivery-claims.js';
import type { CircuitBreaker } from '../destinations/breaker.js';
import type { CountDestination } from '../domains/guard.js';
import type {
  ActionScheduler,
  ActionSettledHook,
  CallbackQueue,
  Clock,
  GateRounds,
  LateDeliveryThresholds,
  OperatorEvents,
  Outbound,
  RequestSigning,
  Store,
  Timers,
  Tracing,
} from '../ports.js';
import type { Waits } from '../waits.js';

/**
 * The delivery of an attempt, in three stages over one attempt: claim (claim.ts), send (send.ts) and record
 * (record.ts), composed by deliver.ts `Deliveries`. Each stage takes only the ports it uses, picked from these.
 */

/** What the use case reports as it goes (Prometheus in production; nothing in most tests). */
export interface DeliveryEvents {
  fired(mode: string, latenessSeconds: number): void;
  attempted(outcome: DeliveryOutcome): void;
  retried(): void;
}

export interface DeliveryPorts {
  store: Store;
  /** The source of the retry waits' jitter (domain/delivery/retry-policy.ts); Math.random when absent. */
  random?: RandomSource;
  /**
   * Where attempts are claimed: connections that commit without waiting for the disk flush (compose/database.ts says
   * why that is safe); `store` when absent.
   */
  claims?: Store;
  scheduler: ActionScheduler;
  callbacks: CallbackQueue;
  outbound: Outbound;
  clock: Clock;
  /** Timers on `clock` (the wait until a claimed attempt's due time); the system's when absent. */
  timers?: Timers;
  waits: Waits;
  events?: DeliveryEvents;
  /** Sends approval gates' messages; absent only where no approval action is fired. */
  approvals?: GateRounds;
  /** Hears of successes with their response (a chain step's action: app/chains/settled.ts). */
  settled?: ActionSettledHook;
  /** Spans of the attempts and approval rounds (OpenTelemetry when configured). */
  tracing?: Tracing | undefined;
  /** What signs each request beside its own secret (a rotation's overlap); the row's own secret alone when absent. */
  signing?: RequestSigning | undefined;
  /** Each host's flow control and circuit breaker (app/destinations/breaker.ts). */
  breaker: CircuitBreaker;
  /** The destination threshold (app/domains/guard.ts), for sends counted when they are made; unset counts nothing. */
  countDestination?: CountDestination | undefined;
  /** Where alertable facts are recorded (`action.failed`, `delivery.late`), in the transaction that causes them. */
  operatorEvents?: OperatorEvents;
  /** How late a delivery must be to be recorded as `delivery.late` for its account (null: no rule watches). */
  lateness?: LateDeliveryThresholds;
}

/** A due attempt this worker now owns, under its lease. */
export interface Claimed {
  /** What the attempt needs of its action (a claim by id answers the whole row). */
  row: AttemptRow;
  /** The whole row, for an approval's round (claimed by id, on the careful path). */
  action?: ActionRow;
  dueAt: Date;
  /** Since when and by what its destination held the due attempt, or null. */
  held: { since: Date; by: HoldReason } | null;
  /** The half-open circuit's probe: its answer, success included, is recorded carefully (it settles the circuit). */
  probe: boolean;
}

/** A due attempt held by its host's flow control: it stays due, unclaimed, and is looked at again at `retryAt`. */
export interface Held {
  retryAt: Date;
}

/** One attempt as it is sent and recorded: the claim, when it started, and what the record must know of it. */
export interface AttemptContext {
  row: AttemptRow;
  dueAt: Date;
  started: Date;
  /** How long its destination held it past its due time, and why. */
  held: AttemptRecord['held'];
  /** The half-open circuit's probe (its answer settles the circuit). */
  probe: boolean;
  /** Late enough for an alert rule (`delivery.late`), or null. */
  late: { latenessMs: number } | null;
  /** A settlement listener (a chain step) wants the response. */
  listened: boolean;
}
