import type { ActionCallbackEvent, ChainCallbackEvent, OperatorEventType } from '@sched/contract';
import type { AlertMessage } from '../domain/alerts/message.js';
import type { ApprovalMessage, ChannelTarget, DeliveryReceipt } from '../domain/approval/messages.js';
import type { PreparedGate } from '../domain/approval/prepare.js';
import type { Plan } from '../domain/quota/plans.js';
import type { ActionRow } from '../persistence/actions.js';
import type { NewRecipient } from '../persistence/approvals/recipients.js';
import type { ChainRow } from '../persistence/chains.js';
import type { Sql } from '../persistence/database.js';
import type { StoredGate } from '../persistence/entities/stored.js';

/**
 * The database as use cases see it: typed SQL (`sql`, on the current transaction) and a transaction helper; the
 * persistence functions take the `db` it hands out. Implemented by persistence/database.ts `Database`.
 */
export interface Store {
  readonly sql: Sql;
  transaction<T>(fn: (db: Sql) => Promise<T>): Promise<T>;
  /** Reads in one snapshot: what several statements read shows one moment. */
  snapshot<T>(fn: (db: Sql) => Promise<T>): Promise<T>;
}

/** A gate resolved against the account's directory: the gate column's starting state and its recipients. */
export interface ResolvedGate {
  stored: StoredGate;
  recipients: NewRecipient[];
}

/**
 * What the create core and a retry need of approvals, so actions/ never imports approvals/ (approvals build on the
 * create core, not the other way round). Implemented by app/approvals/gate.ts `approvalGates`.
 */
export interface ApprovalGates {
  /**
   * A prepared gate against the account's directory, refused when its channels' monthly allowance is spent: throws a
   * ValidationError (422 paths under `gate.`) or a QuotaExceededError.
   */
  resolve(
    db: Sql,
    owner: { accountId: string; plan: Plan },
    gate: PreparedGate,
    now: Date,
  ): Promise<ResolvedGate>;
  /** The gate asks again from the start (a declined approval retried). */
  reopen(db: Sql, row: ActionRow, now: Date): Promise<void>;
}

/**
 * Makes an action's next attempt known to the workers. The row is the schedule (workers claim from its due index, in
 * the caller's transaction's snapshot once it commits); an attempt due within the look-ahead window
 * (domain/schedule/window.ts) is also announced at the commit, so the worker that owns it wakes in time.
 */
export interface ActionScheduler {
  schedule(tx: Sql, actionId: string, dueAt: Date): Promise<void>;
  /** `schedule` of several new attempts in one statement (the creates of one turn of the event loop). */
  announce(tx: Sql, attempts: readonly { actionId: string; dueAt: Date }[]): Promise<void>;
}

type CallbackEvent = ActionCallbackEvent;

/** Records a lifecycle event for the action's callback_url (if any) and queues its delivery, in the caller's transaction. */
export interface CallbackQueue {
  enqueue(
    tx: Sql,
    action: Pick<ActionRow, 'id' | 'account_id' | 'name' | 'callback_url'>,
    event: CallbackEvent,
    payload: Record<string, unknown>,
  ): Promise<void>;
  /** Queues another delivery attempt of a callback at `at`, in the caller's transaction. */
  redeliver(db: Sql, callbackId: string, at: Date): Promise<void>;
}

/** Records a chain event for the chain's callback_url (if any) and queues its delivery, in the caller's transaction. */
export interface ChainCallbacks {
  enqueue(
    db: Sql,
    chain: Pick<ChainRow, 'id' | 'account_id' | 'name' | 'callback_url'>,
    event: ChainCallbackEvent,
    payload: Record<string, unknown>,
  ): Promise<void>;
}

/** The facts an operator may be alerted to (docs/alerts.md): alert rules match them by `type`. */
export type { OperatorEventType };

export interface OperatorEvent {
  account_id: string;
  type: OperatorEventType;
  at: Date;
  /** The host the event concerns, when it concerns one (a delivery, a destination's circuit). */
  destination_host?: string | null | undefined;
  /** What the event is about. */
  subject?: { type: 'action' | 'destination' | 'bulk_operation' | 'chain'; id: string } | undefined;
  /** Small, JSON-safe facts for the message (never a credential or a response token). */
  details: Record<string, unknown>;
}

/**
 * Records an operator event in the caller's transaction, so the fact and the change that caused it commit together;
 * alert rules are evaluated from the recorded events by the worker, never inline.
 */
export interface OperatorEvents {
  record(tx: Sql, event: OperatorEvent): Promise<void>;
}

/**
 * A wake of one destination's held deliveries (app/destinations/breaker.ts `wake`): when its circuit turns
 * half-open or closes, or its pause ends. `after` continues a wake that fired a full batch.
 */
export interface DestinationWake {
  accountId: string;
  /** The destination's origin; a wake written before origins names `host` instead. */
  origin?: string | undefined;
  host?: string | undefined;
  after?: { at: string; id: string } | undefined;
}

/** Durable wakes of destinations: pg-boss jobs written in the caller's transaction (jobs/destination-wakes.ts). */
export interface DestinationWakes {
  wakeAt(tx: Sql, wake: DestinationWake, at: Date): Promise<void>;
}

/**
 * The smallest `late_after` of an account's rules watching `delivery.late`, or null: the delivery core records a
 * late delivery only past it, so deliveries pay nothing when no rule asks (app/alerts/watch.ts caches it).
 */
export interface LateDeliveryThresholds {
  lateAfterMs(accountId: string): Promise<number | null>;
}

/** Alert work made durable in the caller's transaction (pg-boss jobs of jobs/alerts.ts), at once or at `at`. */
export interface AlertJobs {
  /** Evaluates the account's rules against its recorded events (and sends what is due). */
  evaluate(tx: Sql, accountId: string, at?: Date): Promise<void>;
  /** Sends (one attempt of) each notification. */
  send(tx: Sql, notificationIds: readonly string[], at?: Date): Promise<void>;
}

/** Sends one alert through a channel's adapter (channels/registry.ts), or keeps it in the outbox. */
export interface AlertChannels {
  send(target: ChannelTarget, message: AlertMessage): Promise<DeliveryReceipt>;
}

/** Durable timers of pause and resume: pg-boss jobs written in the caller's transaction. */
export interface PauseTimers {
  /** Resumes the action at `at`, unless the pause that set it (`pausedAt`) is over by then. */
  resumeAt(tx: Sql, actionId: string, at: Date, pausedAt: string): Promise<void>;
}

/** Sends the messages of an approval gate's round when its action fires (app/approvals/rounds.ts). */
export interface GateRounds {
  sendRound(row: ActionRow): Promise<void>;
}

/**
 * A gate timer (its pg-boss job's data). `round` is the `gate.sent_at` of the round that set it: a retried gate
 * starts a new round, and the escalation timer of an earlier one must not escalate the new one early. `resumes` is
 * the gate's `resumes` when it was set: an escalation timer from before a pause's resume is stale.
 */
export interface GateTimer {
  actionId: string;
  /** `reassigned`: the first message to a recipient who took over from another (`recipientId`), sent now. */
  kind: 'timeout' | 'escalation' | 'reminder' | 'reassigned';
  /** A reminder asked for by `POST /actions/{id}/remind`: sent once, outside `gate.reminders`. */
  manual?: boolean | undefined;
  recipientId?: string | undefined;
  round?: string | undefined;
  resumes?: number | undefined;
}

/**
 * Makes a gate timer durable work at `at` (a queued job), written in the caller's transaction so the gate's round
 * and its timers commit together. Implemented by jobs/gate-timers.ts; a fired timer comes back to
 * app/approvals/timers.ts `GateTimeouts.fire`.
 */
export interface GateTimers {
  set(tx: Sql, timer: GateTimer, at: Date): Promise<void>;
}

/** Sends one approval message through its channel's adapter (channels/registry.ts), or keeps it in the outbox. */
export interface ApprovalChannels {
  send(target: ChannelTarget, message: ApprovalMessage): Promise<DeliveryReceipt>;
  /**
   * Why this server cannot send the channel's messages at all (production without its settings), or null: such a
   * message is recorded as not sent without spending the plan's allowance.
   */
  unsendable?(channel: ChannelTarget['channel']): string | null;
}

/** Where use cases report what an operator should see (pino's logger in production). */
export interface Log {
  warn(fields: object, message: string): void;
}

/**
 * Hears of an action's successful delivery in the transaction that marks it executed, with the response: how a
 * chain step keeps its response for `{{steps.N.response...}}` (app/chains/settled.ts) without the delivery core
 * knowing chains. (That the step's action reached a final state is recorded by the `chain_step_settled` trigger on
 * `actions`, whichever path settled it.)
 */
export interface ActionSettledHook {
  /**
   * Whether it listens to this action, and how much of the response body it wants. A listened-to success is
   * recorded in its own transaction rather than in the group-committed statement of plain successes.
   */
  listensTo(row: Pick<ActionRow, 'id' | 'chain_id'>): { responseBytes: number } | null;
  succeeded(db: Sql, row: ActionRow, response: { status: number; body: string }): Promise<void>;
}

/** An outgoing HTTP request: the use case's side of outbound/http-client.ts (SSRF-guarded, bounded). */
export interface OutboundRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs: number;
  /** The body is read up to this many bytes (`bodyTruncated` then says it was cut). */
  maxResponseBytes: number;
}

export type OutboundResult =
  | {
      kind: 'response';
      status: number;
      headers: Record<string, string>;
      bodyExcerpt: string;
      bodyTruncated: boolean;
      durationMs: number;
    }
  | { kind: 'timeout'; durationMs: number; message: string }
  /** `code`: the system or library error code (ENOTFOUND, ECONNREFUSED, ERR_TLS_CERT_ALTNAME_INVALID, ...). */
  | { kind: 'connection'; durationMs: number; message: string; code?: string }
  | { kind: 'blocked'; durationMs: number; message: string };

/** The outgoing HTTP client, as use cases need it (outbound/http-client.ts implements it). */
export interface Outbound {
  send(req: OutboundRequest): Promise<OutboundResult>;
}

/** The clock is an input, so use cases and tests agree on what "now" is. */
/** The secrets one request of an account is signed with (app/signing-secrets.ts): its own, and during a rotation's
 * overlap the account secret it replaced. */
export interface RequestSigning {
  secretsFor(accountId: string, own: string | null): Promise<string[]>;
}

export type Clock = () => Date;

/**
 * Timers on the same clock: `after(ms, fn)` runs `fn` once `ms` of the clock's time has passed. With `Clock`, the
 * clock port: main.ts builds both from the system (app/clock.ts); a test drives both by hand
 * (test/support/manual-clock.ts), so the triggers' timers run under a test clock too.
 */
export interface Timers {
  after(ms: number, fn: () => void): { cancel(): void };
}

/**
 * Tracing of the work done after the delay (OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set, see
 * server/src/tracing.ts; absent otherwise, at no cost). A span is started for one unit of work and ended with
 * what it came to.
 */
export interface Tracing {
  /**
   * One delivery attempt. `createdBy` is the traceparent the creating request carried (linked, not parented: the
   * delay may be days). `headers` carry the attempt's own context to the receiver (a W3C `traceparent`).
   */
  deliveryAttempt(a: { actionId: string; attempt: number; latenessMs: number; createdBy: string | null }): {
    headers: Record<string, string>;
    end(result: { status: number | null; error?: string }): void;
  };
  /** Any other unit (an approval round sent, an answer recorded), with its attributes. */
  span<T>(name: string, attributes: Record<string, string | number>, fn: () => Promise<T>): Promise<T>;
  /**
   * One API request, a child of the caller's `traceparent` when it sent one. Its own `traceparent` is what the
   * request's actions store, so each delivery's span links to the request that created it.
   */
  request(r: { method: string; route: string; traceparent: string | null }): {
    traceparent: string;
    end(status: number): void;
  };
}

/** Starts the worker on a bulk operation: a job written in the caller's transaction (jobs/bulk-operations.ts). */
export interface BulkOperationQueue {
  enqueue(tx: Sql, operationId: string): Promise<void>;
}

/** The two domain verification methods; each answers null when it proves the token, else why not. */
export interface VerificationProbes {
  dns(domain: string, token: string): Promise<string | null>;
  file(domain: string, token: string): Promise<string | null>;
}

/** Queues a background check of a pending domain at `at`, in the caller's transaction. */
export interface DomainCheckQueue {
  schedule(db: Sql, accountId: string, domain: string, at: Date): Promise<void>;
}
