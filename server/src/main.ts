import type { MikroORM } from '@mikro-orm/postgresql';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { AccountService } from './app/accounts.js';
import { CallbackDeliveries } from './app/deliveries/callbacks.js';
import { Deliveries } from './app/deliveries/deliver.js';
import { createWaits } from './app/waits.js';
import { ActionReplays } from './app/actions/replay.js';
import { PauseService, pauseAction, resumeAction } from './app/actions/pause.js';
import { ActionService } from './app/actions/service.js';
import { BulkRunner } from './app/bulk/runner.js';
import { BulkOperations } from './app/bulk/service.js';
import { Destinations } from './app/destinations/service.js';
import { ChainEngine } from './app/chains/advance.js';
import { ChainService } from './app/chains/service.js';
import { NotificationChannelService, TeamMemberService } from './app/approvals/directory.js';
import { ResponseService } from './app/approvals/respond.js';
import { ApprovalRounds } from './app/approvals/rounds.js';
import { chainStepSettled } from './app/chains/settled.js';
import { GateTimeouts } from './app/approvals/timers.js';
import { ContactService } from './app/contacts.js';
import { destinationGuard } from './app/domains/guard.js';
import { DomainService } from './app/domains/service.js';
import { QuotaService } from './app/quota.js';
import { RateLimiter } from './app/rate-limiter.js';
import { TemplateService } from './app/templates/service.js';
import { TemplateTrigger } from './app/templates/trigger.js';
import { RetentionService } from './app/retention.js';
import type { Config, Role } from './config.js';
import { buildHttpApp } from './http/app.js';
import { ConsoleSessionService } from './app/console-sessions.js';
import { createChannels } from './channels/registry.js';
import { createGateTimers, GateTimerWorker } from './jobs/gate-timers.js';
import { createSqlOutbox } from './persistence/approvals/outbox-messages.js';
import { createCallbackOutbox } from './jobs/callbacks.js';
import { createChainCallbackOutbox } from './jobs/chain-callbacks.js';
import { ChainWorker } from './jobs/chain-worker.js';
import { Dispatcher } from './jobs/dispatcher.js';
import { createDomainCheckQueue, workDomainChecks } from './jobs/domains.js';
import { workRetention } from './jobs/retention.js';
import { createBulkOperationQueue, workBulkOperations } from './jobs/bulk-operations.js';
import { type JobQueue, startJobQueue } from './jobs/queue.js';
import { createPauseTimers } from './jobs/pause-timers.js';
import { createActionScheduler } from './jobs/scheduler.js';
import { createLogger } from './logger.js';
import { createMetrics } from './metrics.js';
import { createVerificationProbes } from './outbound/domain-probes.js';
import { createOutboundClient, type OutboundClient } from './outbound/http-client.js';
import { DatabaseAvailability, databaseFault } from './persistence/availability.js';
import {
  Database,
  migrateUp,
  openOrm,
  pendingMigrations,
  probeServer,
  withApplicationName,
} from './persistence/database.js';
import { dueBacklog } from './persistence/schedule.js';
import { ensureEmbeddedPostgres } from './persistence/embedded-postgres.js';

export interface RunningService {
  /** The listening address, when the role serves HTTP. */
  url: string | undefined;
  config: Config;
  role: Role;
  database: Database;
  orm: MikroORM;
  logger: Logger;
  /** Drains: stop accepting, finish in-flight requests and jobs up to the deadline, close connections. */
  stop(): Promise<void>;
}

export interface OpenDatabase {
  url: string;
  orm: MikroORM;
  database: Database;
  close(): Promise<void>;
}

/** Connects to DATABASE_URL, or to the embedded PostgreSQL in SCHED_DATA_DIR, and applies pending migrations. */
export async function openDatabase(
  config: Config,
  opts: {
    appName: string;
    poolSize?: number;
    log?: (m: string) => void;
    /** The embedded PostgreSQL's supervisor lines (its postmaster died, restarted); default `log`. */
    alert?: (m: string) => void;
    /** Connect and statement timeouts of the pool (config.databaseTimeouts); the migration runs without them. */
    timeouts?: Config['databaseTimeouts'];
  },
): Promise<OpenDatabase> {
  const embedded = config.databaseUrl
    ? null
    : await ensureEmbeddedPostgres({
        dataDir: config.dataDir,
        ...(opts.log ? { log: opts.log } : {}),
        ...(opts.alert ? { alert: opts.alert } : {}),
      });
  const url = withApplicationName(config.databaseUrl ?? embedded!.url, opts.appName);
  try {
    await migrateWithLock(url);
    const orm = await openOrm({
      databaseUrl: url,
      ...(opts.poolSize ? { poolSize: opts.poolSize } : {}),
      ...(opts.log ? { log: opts.log } : {}),
      ...(opts.timeouts ? { timeouts: opts.timeouts } : {}),
    });
    const database = new Database(orm);
    return {
      url,
      orm,
      database,
      async close() {
        await orm.close(true);
        await embedded?.release();
      },
    };
  } catch (err) {
    await embedded?.release();
    throw err;
  }
}

/**
 * Several processes may start at once: one applies migrations while the others wait. On a pool of its own, without
 * the statement timeout of request connections: a migration, or the wait for another process's, may take long.
 */
async function migrateWithLock(url: string): Promise<void> {
  const database = new Database(await openOrm({ databaseUrl: url, poolSize: 2 }));
  try {
    await database.withSessionLock(7420000, () => migrateUp(database.orm));
  } finally {
    await database.close();
  }
}

export async function startService(
  config: Config,
  role: Role,
  logger: Logger = createLogger(config.logLevel),
): Promise<RunningService> {
  const timeouts = config.databaseTimeouts;
  const opened = await openDatabase(config, {
    appName: `sched-${role}`,
    log: (m) => logger.debug(m),
    alert: (m) => logger.warn(m),
    timeouts,
  });
  const { orm, database } = opened;
  // One view of the database per process: an outage is logged once, requests answer 503, /readyz says why.
  const availability = new DatabaseAvailability({
    probe: () => probeServer(opened.url, timeouts.connectMs),
    log: logger,
  });
  // The one clock of the process: every decision that depends on "now" reads it.
  const clock = () => new Date();
  const accounts = new AccountService(database, clock);
  // Rate-limit windows and the usage of plans without a quota are hot rows every request updates; their own small
  // pool commits them without waiting for the disk flush (synchronous_commit=off), so the row lock is held for
  // microseconds. A crash may forget a second of counts, never data that matters.
  const counterDatabase = new Database(
    await openOrm({
      databaseUrl: opened.url,
      poolSize: 8,
      sessionOptions: '-c synchronous_commit=off',
      timeouts,
    }),
  );
  const rateLimiter = new RateLimiter(counterDatabase, clock);

  const created = await accounts.ensureDefaultAccount();
  if (created) announceDefaultAccount(config, created.apiKey, logger);

  const waits = createWaits(config.timeScale);
  const metrics = createMetrics();
  let queue: JobQueue | undefined;
  let http: FastifyInstance | undefined;
  let maintenance: NodeJS.Timeout | undefined;
  let dispatcher: Dispatcher | undefined;
  let chainWorker: ChainWorker | undefined;
  let gateTimerWorker: GateTimerWorker | undefined;
  let outbound: OutboundClient | undefined;
  const probes = createVerificationProbes({
    dnsServers: config.dnsServers,
    allowPrivateDestinations: config.allowPrivateDestinations,
  });
  let workerDatabase: Database | undefined;
  let stopBulkSweep: (() => void) | undefined;
  try {
    queue = await startJobQueue({
      databaseUrl: opened.url,
      role,
      logger,
      availability,
      connectTimeoutMs: timeouts.connectMs,
      expireInSeconds: config.jobExpireSeconds,
    });
    const scheduler = createActionScheduler(queue, clock);
    const callbackOutbox = createCallbackOutbox(queue, clock);
    const gateTimers = createGateTimers(queue);
    const pauseDeps = {
      scheduler,
      callbacks: callbackOutbox,
      timers: createPauseTimers(queue),
      gateTimers,
      clock,
      waits,
    };
    const pauses = new PauseService({ store: database, ...pauseDeps });
    const chainCallbacks = createChainCallbackOutbox(queue, clock);
    // The destination threshold: the one check for actions, chain HTTP steps and template triggers.
    const countDestination = destinationGuard(config.domainLimits);
    const chainEngine = (store: Database) =>
      new ChainEngine({
        store,
        callbacks: chainCallbacks,
        scheduler,
        clock,
        allowPrivateDestinations: config.allowPrivateDestinations,
        countDestination,
      });
    const domains = new DomainService({
      store: database,
      probes,
      checks: createDomainCheckQueue(queue),
      clock,
      limits: config.domainLimits,
    });
    const actions = new ActionService(database, scheduler, clock, {
      allowPrivateDestinations: config.allowPrivateDestinations,
      counters: counterDatabase,
      countDestination,
      waits,
    });
    const replays = new ActionReplays({
      store: database,
      scheduler,
      clock,
      allowPrivateDestinations: config.allowPrivateDestinations,
      countDestination,
      view: (db, row) => actions.view(db, row),
    });
    if (role !== 'worker') {
      const chains = new ChainService(database, chainEngine(database), chainCallbacks, clock, {
        allowPrivateDestinations: config.allowPrivateDestinations,
      });
      const bulkOperations = new BulkOperations(database, createBulkOperationQueue(queue), clock);
      http = await buildHttpApp({
        logger,
        accounts,
        consoleSessions: new ConsoleSessionService(database, clock),
        contacts: new ContactService(database),
        actions,
        replays,
        bulkOperations,
        destinations: new Destinations(database, bulkOperations, clock),
        pauses,
        templates: new TemplateService({
          store: database,
          clock,
          publicUrl: () => config.publicUrl,
          allowPrivateDestinations: config.allowPrivateDestinations,
        }),
        trigger: new TemplateTrigger({ store: database, clock, actions, chains }),
        chains,
        domains,
        quota: new QuotaService(database, clock),
        channels: new NotificationChannelService(database, {
          allowPrivateDestinations: config.allowPrivateDestinations,
        }),
        teamMembers: new TeamMemberService(database),
        responses: new ResponseService({
          db: database,
          scheduler,
          callbacks: callbackOutbox,
          clock,
          waits,
        }),
        metrics: {
          token: config.metricsToken,
          render: async () => {
            const backlog = await dueBacklog(database.sql, clock());
            metrics.queueDepth.set(backlog.depth);
            metrics.oldestDue.set(backlog.oldestSeconds);
            metrics.deliveriesInFlight.set(dispatcher?.inFlight ?? 0);
            metrics.deliveriesWaiting.set(dispatcher?.waiting ?? 0);
            return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
          },
        },
        rateLimiter,
        rateLimitFactor: config.rateLimitFactor,
        validateResponses: config.env !== 'production',
        trustProxy: config.trustProxy,
        publicUrl: () => (config.publicUrlExplicit ? config.publicUrl : undefined),
        timeouts: {
          requestMs: config.httpRequestTimeoutMs,
          connectionMs: config.httpConnectionTimeoutMs,
          keepAliveMs: config.httpKeepAliveTimeoutMs,
        },
        databaseFault: (err) => availability.answerFor(err),
        readiness: async () => {
          const checks: Record<string, string> = {};
          try {
            // During an outage the tracker's own probe decides; no request piles onto a dead server meanwhile.
            if (!availability.available) throw new Error(availability.unavailableReason);
            await database.ping();
            checks.database = 'ok';
            const pending = await pendingMigrations(orm);
            checks.migrations = pending.length === 0 ? 'ok' : `pending: ${pending.join(', ')}`;
          } catch (err) {
            // The reason goes to the log only (once per outage): /readyz is public and the text names hosts,
            // ports and users.
            if (availability.available && !availability.absorbs(err))
              logger.warn({ err }, 'readiness check failed');
            const busy = databaseFault(err) === 'timeout' ? 'no connection in time' : 'unreachable';
            checks.database = `unavailable: ${availability.unavailableReason ?? busy}`;
          }
          return { ok: Object.values(checks).every((v) => v === 'ok'), checks };
        },
      });
      await http.listen({ host: config.host, port: config.port });
      const bound = http.server.address();
      // With PORT=0 and no SCHED_PUBLIC_URL, links must carry the port actually bound.
      if (!config.publicUrlExplicit && bound && typeof bound === 'object')
        config.publicUrl = `http://localhost:${bound.port}`;
    }
    if (role !== 'api') {
      // Firing has its own connections: a claim never queues behind API transactions in the same process.
      workerDatabase = new Database(await openOrm({ databaseUrl: opened.url, poolSize: 10, timeouts }));
      const guarded = createOutboundClient({ allowPrivate: config.allowPrivateDestinations });
      outbound = guarded;
      const channels = createChannels(config.channels, {
        outbox: createSqlOutbox(database, clock),
        logger,
        // Provider calls (Twilio, Slack, Teams) go through the SSRF-guarded client like every outgoing request.
        http: async (req) => {
          const r = await guarded.send({ ...req, maxResponseBytes: 65_536 });
          return r.kind === 'response' ? { status: r.status, body: r.bodyExcerpt } : { error: r.message };
        },
      });
      const approvals = new ApprovalRounds({
        store: database,
        timers: gateTimers,
        channels: { send: (target, message) => channels[target.channel].send(target, message) },
        log: logger,
        clock,
        waits,
        publicUrl: () => config.publicUrl,
      });
      gateTimerWorker = new GateTimerWorker(
        queue,
        new GateTimeouts({
          store: database,
          timers: gateTimers,
          scheduler,
          callbacks: callbackOutbox,
          clock,
          rounds: approvals,
        }),
        logger,
      );
      await gateTimerWorker.start();
      const deliveries = new Deliveries({
        store: workerDatabase,
        scheduler,
        callbacks: callbackOutbox,
        outbound: guarded,
        clock,
        waits,
        events: {
          fired: (mode, seconds) => metrics.fireLateness.observe({ mode }, seconds),
          attempted: (outcome) => metrics.deliveries.inc({ outcome }),
          retried: () => metrics.retries.inc(),
        },
        approvals,
        settled: chainStepSettled,
      });
      const callbacks = new CallbackDeliveries({
        store: workerDatabase,
        outbox: callbackOutbox,
        outbound: guarded,
        waits,
        clock,
        events: {
          attempted: (outcome, failure) => {
            metrics.callbacks.inc({ outcome });
            if (failure) logger.info({ ...failure, status: outcome }, 'callback not delivered');
          },
        },
      });
      dispatcher = new Dispatcher({
        store: workerDatabase,
        databaseUrl: opened.url,
        queue,
        scheduler,
        deliveries,
        callbacks,
        resumeWhenDue: (job) => pauses.resumeWhenDue(job),
        logger,
        clock,
        limits: config.deliveryConcurrency,
        availability,
      });
      await dispatcher.start();
      chainWorker = new ChainWorker({
        store: workerDatabase,
        engine: chainEngine(workerDatabase),
        clock,
        logger,
        databaseUrl: opened.url,
        availability,
      });
      await chainWorker.start();
      await workDomainChecks(queue, domains);
      await workRetention(queue, new RetentionService(database, clock), metrics, logger);
      const bulkQueue = createBulkOperationQueue(queue);
      const bulkRunner = new BulkRunner({
        store: database,
        clock,
        waits,
        ops: {
          cancel: (db, rows, now) => actions.cancelRows(db, rows, now),
          retry: async (db, row, now) => void (await actions.retryRow(db, row, now)),
          replay: async (db, owner, row, overrides) =>
            (await replays.replayRow(db, owner, row, overrides)).id,
          pause: async (db, row, input, via) =>
            void (await pauseAction(pauseDeps, db, row.account_id, row.id, input, { via })),
          resume: async (db, row, input, via) =>
            void (await resumeAction(pauseDeps, db, row.account_id, row.id, input, { via })),
        },
        handOn: (id) => bulkQueue.enqueue(database.sql, id),
      });
      stopBulkSweep = await workBulkOperations(queue, bulkRunner, logger, waits.wait(2_000, 500));
      // Expired rate-limit windows are pruned by whichever worker gets there; the delete is idempotent.
      maintenance = setInterval(() => {
        void rateLimiter.prune().catch((err: unknown) => {
          if (!availability.absorbs(err)) logger.warn({ err }, 'rate-limit prune failed');
        });
      }, 60_000);
      maintenance.unref();
    }
  } catch (err) {
    stopBulkSweep?.();
    await chainWorker?.stop().catch(() => undefined);
    await dispatcher?.stop(0).catch(() => undefined);
    await gateTimerWorker?.stop(0).catch(() => undefined);
    await http?.close().catch(() => undefined);
    await queue?.stop({ graceful: false, timeoutMs: 1000 }).catch(() => undefined);
    await workerDatabase?.close().catch(() => undefined);
    await probes.close().catch(() => undefined);
    await counterDatabase.close().catch(() => undefined);
    await opened.close().catch(() => undefined);
    throw err;
  }

  const address = http?.server.address();
  const url =
    address && typeof address === 'object' ? `http://${hostForUrl(config.host)}:${address.port}` : undefined;
  let stopping: Promise<void> | undefined;
  return {
    url,
    config,
    role,
    database,
    orm,
    logger,
    stop() {
      stopping ??= (async () => {
        if (maintenance) clearInterval(maintenance);
        stopBulkSweep?.();
        availability.close();
        await http?.close();
        await chainWorker?.stop();
        await Promise.all([
          dispatcher?.stop(config.shutdownTimeoutMs),
          gateTimerWorker?.stop(config.shutdownTimeoutMs),
        ]);
        await queue?.stop({ graceful: true, timeoutMs: config.shutdownTimeoutMs });
        await outbound?.close();
        await probes.close().catch(() => undefined);
        await workerDatabase?.close().catch(() => undefined);
        await counterDatabase.close().catch(() => undefined);
        await opened.close();
      })();
      return stopping;
    },
  };
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Keeps the first key in SCHED_DATA_DIR/credentials (mode 0600). It is printed only to a person at a terminal
 * running the embedded database; a container or a service manager sends stdout to a log pipeline, so there, and
 * with an external DATABASE_URL, only the file's path is printed (docs/security.md).
 */
function announceDefaultAccount(config: Config, apiKey: string, logger: Logger): void {
  mkdirSync(config.dataDir, { recursive: true });
  const file = join(config.dataDir, 'credentials');
  writeFileSync(file, `SCHED_API_URL=${config.publicUrl}\nSCHED_API_KEY=${apiKey}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  logger.info({ credentials: file }, 'created the default account (plan business)');
  const show = process.stdout.isTTY === true && config.databaseUrl === undefined;
  process.stdout.write(
    show
      ? `\nsched: created the default account. Its API key (shown once, also saved to ${file}):\n\n  ${apiKey}\n\n`
      : `\nsched: created the default account. Its API key is in ${file} (readable by this user only).\n\n`,
  );
}
