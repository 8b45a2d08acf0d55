import type { Logger } from 'pino';
import { type PauseDeps, PauseService } from '../app/actions/pause.js';
import { ActionReplays } from '../app/actions/replay.js';
import { ActionChanges } from '../app/actions/cancel-retry.js';
import { ActionQueries } from '../app/actions/queries.js';
import { ActionService } from '../app/actions/service.js';
import { createApprovalGates } from '../app/approvals/gate.js';
import type { ChannelState } from '@sched/contract';
import { type ChannelConfig, configuredChannels, REQUIRED_VARS } from '../channels/registry.js';
import { CHANNELS, type ChannelName } from '../channels/types.js';
import { channelStates } from '../domain/approval/channel-availability.js';
import { AccountService } from '../app/accounts.js';
import { ChainEngine } from '../app/chains/advance.js';
import { systemClock, systemTimers } from '../app/clock.js';
import { CircuitBreaker } from '../app/destinations/breaker.js';
import { destinationGuard } from '../app/domains/guard.js';
import { DomainService } from '../app/domains/service.js';
import type {
  ActionScheduler,
  AlertJobs,
  CallbackQueue,
  ChainCallbacks,
  Clock,
  DestinationWakes,
  GateTimers,
  OperatorEvents,
  Timers,
  Tracing,
} from '../app/ports.js';
import { RateLimiter } from '../app/rate-limiter.js';
import { Reads } from '../app/reads.js';
import { createWaits, type Waits } from '../app/waits.js';
import type { Config, Role } from '../config.js';
import { AlertWatch } from '../app/alerts/watch.js';
import { createAlertJobs, createOperatorEvents } from '../jobs/alerts.js';
import { createCallbackQueue } from '../jobs/callbacks.js';
import { createDestinationWakes } from '../jobs/destination-wakes.js';
import { createDomainCheckQueue } from '../jobs/domains.js';
import { createGateTimers } from '../jobs/gate-timers.js';
import { createPauseTimers } from '../jobs/pause-timers.js';
import { type JobQueue, startJobQueue } from '../jobs/queue.js';
import { createActionScheduler, type WindowScheduler } from '../jobs/scheduler.js';
import { createMetrics, type Metrics } from '../metrics.js';
import { createTracing } from '../tracing.js';
import { createVerificationProbes } from '../outbound/domain-probes.js';
import type { Database } from '../persistence/database.js';
import type { DatabaseHandles } from './database.js';
import { ProcessListen } from './listen.js';
import type { Shutdown } from './shutdown.js';

/** What the API and the worker of one process share: the configuration, the database handles, the clock, the job
 *  queue and the ports written on it, and the use cases both roles run. */
export interface ServiceContext {
  config: Config;
  role: Role;
  logger: Logger;
  db: DatabaseHandles;
  /** The one clock of the process (app/clock.ts): decisions read `clock`, triggers arm `timers` on it. */
  clock: Clock;
  timers: Timers;
  waits: Waits;
  metrics: Metrics;
  /** OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set (server/src/tracing.ts); undefined otherwise. */
  tracing: Tracing | undefined;
  /** The public root of links: SCHED_PUBLIC_URL, or the address bound once the API listens. */
  publicUrl: () => string;
  queue: JobQueue;
  scheduler: WindowScheduler & ActionScheduler;
  callbacks: CallbackQueue;
  chainCallbacks: ChainCallbacks;
  gateTimers: GateTimers;
  /** Where alertable facts are recorded (app/ports.ts OperatorEvents); alert rules read them. */
  operatorEvents: OperatorEvents;
  /** Durable wakes of destinations' held deliveries (jobs/destination-wakes.ts). */
  destinationWakes: DestinationWakes;
  /** Which notification channels this server can send (/readyz, the create's check, the rounds). */
  channelSending: ChannelSending;
  /** Every host's circuit breaker and flow control (app/destinations/breaker.ts), its state in PostgreSQL. */
  breaker: CircuitBreaker;
  /** Alert evaluations and messages as jobs (jobs/alerts.ts). */
  alertJobs: AlertJobs;
  /** What each account's alert rules watch, cached (the worker keeps it fresh from rule-change announcements). */
  alertWatch: AlertWatch;
  accounts: AccountService;
  rateLimiter: RateLimiter;
  /** Pause and resume, as the service and the bulk runner (inside their transactions) use them. */
  pauseDeps: PauseDeps;
  pauses: PauseService;
  actions: ActionService;
  actionQueries: ActionQueries;
  /** Where reads that may lag run: the read replica when configured and allowed, the primary otherwise. */
  reads: Reads;
  actionChanges: ActionChanges;
  replays: ActionReplays;
  domains: DomainService;
  /** The destination threshold: the one check for actions, chain HTTP steps and template triggers. */
  countDestination: ReturnType<typeof destinationGuard>;
  /** The chain engine on a given pool (the API's for creates, the firing pool for the chain worker). */
  chainEngine(store: Database): ChainEngine;
  /** The process's one LISTEN connection (compose/listen.ts). */
  listen: ProcessListen;
}

export async function buildContext(
  base: { config: Config; role: Role; logger: Logger; db: DatabaseHandles; publicUrl: () => string },
  shutdown: Shutdown,
): Promise<ServiceContext> {
  const { config, role, logger, db } = base;
  const clock = systemClock;
  // OpenTelemetry only when OTEL_EXPORTER_OTLP_ENDPOINT is set: its SDK is not even loaded otherwise.
  const tracing = await createTracing();
  if (tracing) shutdown.add('the trace exporter', () => tracing.shutdown().catch(() => undefined));
  const waits = createWaits(config.timeScale);
  const probes = createVerificationProbes({
    dnsServers: config.dnsServers,
    allowPrivateDestinations: config.allowPrivateDestinations,
  });
  shutdown.add('the domain probes', () => probes.close().catch(() => undefined));
  const listen = new ProcessListen({ url: db.opened.url, logger, availability: db.availability, shutdown });
  const queue = await startJobQueue({
    databaseUrl: db.opened.url,
    role,
    logger,
    availability: db.availability,
    connectTimeoutMs: config.databaseTimeouts.connectMs,
    expireInSeconds: config.jobExpireSeconds,
    clock,
    store: db.main,
    // A worker's own connection, adopted before its queues' workers start (compose/worker.ts).
    listen: () => listen.get(),
  });
  shutdown.add('the job queue (pg-boss)', (graceful) =>
    queue.stop(
      graceful
        ? { graceful: true, timeoutMs: config.shutdownTimeoutMs }
        : { graceful: false, timeoutMs: 1000 },
    ),
  );
  const scheduler = createActionScheduler(clock);
  const callbackQueues = createCallbackQueue(queue, clock);
  const gateTimers = createGateTimers(queue);
  const countDestination = destinationGuard(config.domainLimits);
  const alertJobs = createAlertJobs(queue);
  const alertWatch = new AlertWatch(db.main, clock);
  const pauseDeps: PauseDeps = {
    scheduler,
    callbacks: callbackQueues.actions,
    timers: createPauseTimers(queue),
    gateTimers,
    clock,
    waits,
  };
  const operatorEvents = createOperatorEvents(alertJobs, alertWatch);
  const sending = channelSending(config.channels, config.env === 'production');
  const approvalGates = createApprovalGates(sending);
  const destinationWakes = createDestinationWakes(queue);
  const metrics = createMetrics();
  const reads = new Reads({
    primary: db.main,
    replica: db.replica,
    bookkeeping: db.counters,
    policy: {
      maxLagSeconds: config.readReplica?.maxLagSeconds ?? 0,
      readYourWritesSeconds: config.readReplica?.readYourWritesSeconds ?? 0,
    },
    clock,
    timers: systemTimers,
    log: logger,
    events: {
      lag: (seconds) => {
        metrics.replicaUp.set(seconds === null ? 0 : 1);
        if (seconds !== null) metrics.replicaLag.set(seconds);
      },
      served: (on) => metrics.reads.inc({ on }),
      fellBack: (reason) => metrics.replicaFallbacks.inc({ reason }),
    },
  });
  await reads.start();
  shutdown.add('the read replica watch', () => reads.close(), { first: true });
  const actionQueries = new ActionQueries({ store: db.main, clock, waits, reads });
  const actionChanges = new ActionChanges({
    store: db.main,
    scheduler,
    callbacks: callbackQueues.actions,
    clock,
    countDestination,
    gates: approvalGates,
  });
  const actions = new ActionService(db.main, scheduler, clock, {
    allowPrivateDestinations: config.allowPrivateDestinations,
    counters: db.counters,
    countDestination,
    gates: approvalGates,
    queries: actionQueries,
    changes: actionChanges,
    countFailed: (err) => logger.warn({ err }, 'could not count creates in the usage counters'),
  });
  // Before the counters pool closes (steps run last-registered first): the creates answered are counted.
  shutdown.add('the late action counts', () => actions.lateCounts.settled());
  return {
    ...base,
    listen,
    clock,
    timers: systemTimers,
    waits,
    metrics,
    tracing,
    queue,
    scheduler,
    callbacks: callbackQueues.actions,
    chainCallbacks: callbackQueues.chains,
    gateTimers,
    operatorEvents,
    destinationWakes,
    channelSending: sending,
    breaker: new CircuitBreaker({ store: db.main, clock, events: operatorEvents, wakes: destinationWakes }),
    alertJobs,
    alertWatch,
    accounts: new AccountService(db.main, clock),
    rateLimiter: new RateLimiter(db.counters, clock),
    pauseDeps,
    pauses: new PauseService({ store: db.main, ...pauseDeps }),
    actions,
    actionQueries,
    reads,
    actionChanges,
    replays: new ActionReplays({
      store: db.main,
      scheduler,
      clock,
      allowPrivateDestinations: config.allowPrivateDestinations,
      countDestination,
      gates: approvalGates,
      view: (db, row) => actionQueries.view(db, row),
    }),
    domains: new DomainService({
      store: db.main,
      probes,
      checks: createDomainCheckQueue(queue),
      clock,
      limits: config.domainLimits,
    }),
    countDestination,
    chainEngine: (store) =>
      new ChainEngine({
        store,
        callbacks: callbackQueues.chains,
        scheduler,
        clock,
        allowPrivateDestinations: config.allowPrivateDestinations,
        countDestination,
        gates: approvalGates,
      }),
  };
}

/** Which channels this server can send, and the settings each needs: for the create's check, /readyz, the rounds. */
export interface ChannelSending {
  states: Record<ChannelName, ChannelState>;
  settings: Record<ChannelName, readonly string[]>;
}

/** The channels' states from the one rule of which are configured (channels/registry.ts `configuredChannels`). */
function channelSending(config: ChannelConfig, production: boolean): ChannelSending {
  return {
    states: channelStates(CHANNELS, configuredChannels(config), production),
    settings: REQUIRED_VARS,
  };
}
