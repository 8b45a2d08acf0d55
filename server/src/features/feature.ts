import type { FastifyInstance } from 'fastify';
import type { ActionWaits } from '../app/actions/wait.js';
import type { PendingApprovals } from '../app/approvals/pending.js';
import type { ResponseService } from '../app/approvals/respond.js';
import type { ApprovalRounds } from '../app/approvals/rounds.js';
import type { BulkOperations } from '../app/bulk/service.js';
import type { CalendarService } from '../app/calendars/service.js';
import type { ChainService } from '../app/chains/service.js';
import type { ConsoleSessionService } from '../app/console-sessions.js';
import type { AlertChannels, Outbound } from '../app/ports.js';
import type { ServiceContext } from '../compose/context.js';
import type { Shutdown } from '../compose/shutdown.js';
import type { RouteKit } from '../http/plugin.js';
import type { Dispatcher } from '../jobs/dispatcher.js';
import type { Notifications } from '../persistence/notifications.js';

/**
 * A feature plugs in from its own module: its routes (the API role) and its queue workers (the worker role), each
 * built from what the composition root hands it. Registered in order by `features/index.ts`; nothing central names
 * a feature's route or queue.
 */
export interface Feature {
  readonly name: string;
  /** Registers the feature's routes: contract parts through `http.contract`, others (pages, hooks) on `app`. */
  routes?(app: FastifyInstance, http: RouteKit, api: ApiRuntime): void | Promise<void>;
  /** Starts the feature's workers; the worker role stops them with its other triggers, by deadline. */
  workers?(worker: WorkerRuntime): Promise<Stoppable[]>;
}

/** A started worker: it stops taking work, then waits up to `deadlineMs` for the work in hand. */
export interface Stoppable {
  stop(deadlineMs: number): Promise<void>;
  /** Stopped before the dispatcher and the queues' workers (the chain worker: it makes actions they take up). */
  stopFirst?: boolean;
}

/** What the API role hands a feature's routes. */
export interface ApiRuntime {
  ctx: ServiceContext;
  shutdown: Shutdown;
  /** The use cases more than one feature answers with, built once (compose/api.ts). */
  shared: SharedServices;
  /** The delivery gauges of this process's worker, when it runs one (the metrics read them). */
  firing: () => { inFlight: number; waiting: number } | undefined;
}

/** Use cases two features share: chains (its routes, template triggers), answers (pages, integrations)... */
export interface SharedServices {
  chains: ChainService;
  responses: ResponseService;
  bulkOperations: BulkOperations;
  /** Held `GET /v1/actions/{id}/wait` requests (and MCP's `wait_for_decision`). */
  actionWaits: ActionWaits;
  pendingApprovals: PendingApprovals;
  calendars: CalendarService;
  /** Console sign-ins: the console's routes open them, authentication reads them. */
  consoleSessions: ConsoleSessionService;
}

/** What the worker role hands a feature's workers. */
export interface WorkerRuntime {
  ctx: ServiceContext;
  shutdown: Shutdown;
  /** The SSRF-guarded client every outgoing request goes through. */
  outbound: Outbound;
  /** The notification channels, each message counted by channel and outcome. */
  send: AlertChannels['send'];
  /** Logs a failed job (pg-boss retries it); a database fault is logged once by the availability tracker. */
  failedJob(what: string): (err: unknown) => void;
  /** The delivery engine compose/worker.ts runs, which some features' workers hand work to. */
  engine: {
    /** Fires held attempts by id (a destination's wake). */
    dispatcher: Pick<Dispatcher, 'fireHeld'>;
    /** Sends an approval's rounds (a gate's timers escalate through it). */
    rounds: ApprovalRounds;
    /** The process's LISTEN connection (the chain worker hears due steps on it). */
    notifications: Notifications;
  };
}
