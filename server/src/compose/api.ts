import { ActionMoves } from '../app/actions/reschedule.js';
import { CalendarService } from '../app/calendars/service.js';
import { HOLD_REASONS } from '@sched/contract';
import type { FastifyInstance } from 'fastify';
import { ActionWaits } from '../app/actions/wait.js';
import { ActionWatch } from '../app/actions/watch.js';
import { GrantService } from '../app/grants/service.js';
import { AlertRules } from '../app/alerts/rules.js';
import { NotificationChannelService, TeamMemberService } from '../app/directory/chat-and-team.js';
import { ResponseService } from '../app/approvals/respond.js';
import { startIntegrations } from './integrations.js';
import { ChainService } from '../app/chains/service.js';
import { ConsoleSessionService } from '../app/console-sessions.js';
import { ContactService } from '../app/directory/contacts.js';
import { QuotaService } from '../app/quota.js';
import { AuditService } from '../app/audit.js';
import { Reassignments } from '../app/approvals/reassign.js';
import { ReminderRequests } from '../app/approvals/remind.js';
import { PendingApprovals } from '../app/approvals/pending.js';
import { OutboxService } from '../app/outbox.js';
import { TemplateService } from '../app/templates/service.js';
import { TemplateTrigger } from '../app/templates/trigger.js';
import { BulkOperations } from '../app/bulk/service.js';
import { Destinations } from '../app/destinations/service.js';
import { DestinationTests } from '../app/destinations/test-send.js';
import { createOutboundClient } from '../outbound/http-client.js';
import { buildHttpApp } from '../http/app.js';
import { type Metrics, routeLabel } from '../metrics.js';
import { createBulkOperationQueue } from '../jobs/bulk-operations.js';
import { ACTION_CHANGED_CHANNEL } from '../persistence/entities/action.js';
import { databaseFault } from '../persistence/availability.js';
import { pendingMigrations } from '../persistence/database.js';
import { circuitStateCounts, heldCounts, topHeldHosts } from '../persistence/destinations.js';
import type { Sql } from '../persistence/database.js';
import { dueBacklog } from '../persistence/schedule.js';
import type { ServiceContext } from './context.js';
import type { Shutdown } from './shutdown.js';

/**
 * The API role: the use cases requests run and the HTTP app over them, listening. Answers the app and the address it
 * bound. `firing()` reads the delivery gauges of this process's worker, when it runs one.
 */
export async function startApi(
  ctx: ServiceContext,
  shutdown: Shutdown,
  firing: () => { inFlight: number; waiting: number } | undefined,
): Promise<{ http: FastifyInstance; port: number | undefined }> {
  const { config, db, clock, waits, metrics, logger } = ctx;
  const { main: database, availability } = db;
  const { actions } = ctx;
  const chains = new ChainService(database, ctx.chainEngine(database), ctx.chainCallbacks, clock, {
    allowPrivateDestinations: config.allowPrivateDestinations,
    countDestination: ctx.countDestination,
    transitions: { callbacks: ctx.callbacks, scheduler: ctx.scheduler },
  });
  const watch = new ActionWatch({ channel: ACTION_CHANGED_CHANNEL, feed: () => ctx.listen.get() });
  const actionWaits = new ActionWaits({ actions: ctx.actionQueries, watch, clock, timers: ctx.timers });
  // Before the listener's close: held waits answer at once instead of keeping the stop waiting for their timeout.
  shutdown.add('the held waits', () => actionWaits.close(), { first: true });
  const bulkOperations = new BulkOperations(database, createBulkOperationQueue(ctx.queue), clock, {
    limiter: ctx.rateLimiter,
    globalFactor: config.rateLimitFactor,
  });
  const responses = new ResponseService({
    db: database,
    scheduler: ctx.scheduler,
    callbacks: ctx.callbacks,
    clock,
    waits,
    tracing: ctx.tracing,
  });
  const integrations = await startIntegrations(ctx, responses, shutdown);
  // Test-sends leave from the API process (the caller waits for the answer), through the same SSRF guard.
  const testOutbound = createOutboundClient({
    allowPrivate: config.allowPrivateDestinations,
    connections: 4,
  });
  shutdown.add('the test-send HTTP client', () => testOutbound.close());
  const http = await buildHttpApp({
    logger,
    accounts: ctx.accounts,
    consoleSessions: new ConsoleSessionService(database, clock),
    contacts: new ContactService(database),
    actions,
    actionQueries: ctx.actionQueries,
    actionChanges: ctx.actionChanges,
    actionWaits,
    grants: new GrantService({ store: database, clock }),
    replays: ctx.replays,
    moves: new ActionMoves({
      store: database,
      scheduler: ctx.scheduler,
      callbacks: ctx.callbacks,
      clock,
      allowPrivateDestinations: config.allowPrivateDestinations,
    }),
    calendars: new CalendarService({ store: database, clock }),
    bulkOperations,
    destinations: new Destinations(
      database,
      bulkOperations,
      clock,
      ctx.breaker,
      ctx.destinationWakes,
      ctx.reads,
    ),
    destinationTests: new DestinationTests({
      store: database,
      clock,
      outbound: testOutbound,
      signing: ctx.accounts.signing,
      allowPrivateDestinations: config.allowPrivateDestinations,
      rateLimiter: ctx.rateLimiter,
    }),
    alertRules: new AlertRules({
      store: database,
      clock,
      jobs: ctx.alertJobs,
      allowPrivateDestinations: config.allowPrivateDestinations,
      countDestination: ctx.countDestination,
      rateLimiter: ctx.rateLimiter,
    }),
    pauses: ctx.pauses,
    templates: new TemplateService({
      store: database,
      clock,
      publicUrl: ctx.publicUrl,
      allowPrivateDestinations: config.allowPrivateDestinations,
    }),
    trigger: new TemplateTrigger({ store: database, clock, actions, chains }),
    chains,
    domains: ctx.domains,
    audit: new AuditService(database, clock, ctx.reads),
    recordWrite: (accountId) => ctx.reads.wrote(accountId),
    reminders: new ReminderRequests({ store: database, timers: ctx.gateTimers, clock }),
    reassignments: new Reassignments({ store: database, timers: ctx.gateTimers, clock }),
    pendingApprovals: new PendingApprovals({ store: database, clock, waits }),
    quota: new QuotaService(database, clock),
    channels: new NotificationChannelService(database, {
      allowPrivateDestinations: config.allowPrivateDestinations,
    }),
    teamMembers: new TeamMemberService(database),
    outbox: new OutboxService(database, config.env !== 'production'),
    corsOrigins: config.corsOrigins,
    responses,
    integrations,
    observeRequest: (method, route, status, seconds) =>
      metrics.httpRequests.observe(
        { method, route: routeLabel(route), status_class: `${Math.floor(status / 100)}xx` },
        seconds,
      ),
    metrics: {
      token: config.metricsToken,
      render: async () => {
        const backlog = await dueBacklog(database.sql, clock());
        metrics.queueDepth.set(backlog.depth);
        metrics.oldestDue.set(backlog.oldestSeconds);
        metrics.deliveriesInFlight.set(firing()?.inFlight ?? 0);
        metrics.deliveriesWaiting.set(firing()?.waiting ?? 0);
        await destinationGauges(database.sql, metrics, config.metricsHostLabels);
        return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
      },
    },
    rateLimiter: ctx.rateLimiter,
    rateLimitFactor: config.rateLimitFactor,
    validateResponses: config.validateResponses,
    trustProxy: config.trustProxy,
    publicUrl: () => (config.publicUrlExplicit ? config.publicUrl : undefined),
    docs: config.docs,
    tracing: ctx.tracing,
    siteUrl: ctx.publicUrl,
    production: config.env === 'production',
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
        const pending = await pendingMigrations(db.orm);
        checks.migrations = pending.length === 0 ? 'ok' : `pending: ${pending.join(', ')}`;
      } catch (err) {
        // The reason goes to the log only (once per outage): /readyz is public and the text names hosts,
        // ports and users.
        if (availability.available && !availability.absorbs(err))
          logger.warn({ err }, 'readiness check failed');
        const busy = databaseFault(err) === 'timeout' ? 'no connection in time' : 'unreachable';
        checks.database = `unavailable: ${availability.unavailableReason ?? busy}`;
      }
      return {
        ok: Object.values(checks).every((v) => v === 'ok'),
        checks,
        channels: ctx.channelSending.states,
        readReplica: ctx.reads.status(),
      };
    },
  });
  // Stops taking requests before anything else stops; in-flight ones finish.
  shutdown.add('the HTTP listener', () => http.close(), { first: true });
  await http.listen({ host: config.host, port: config.port });
  const bound = http.server.address();
  return { http, port: bound && typeof bound === 'object' ? bound.port : undefined };
}

/** Hosts the per-host gauges name at most (SCHED_METRICS_HOST_LABELS). */
const METRICS_TOP_HOSTS = 20;
const NOT_CLOSED = ['open', 'half_open', 'disabled'] as const;

/** The destination gauges, read at scrape time: totals always, per host only when asked for (bounded). */
async function destinationGauges(db: Sql, metrics: Metrics, hostLabels: boolean): Promise<void> {
  const [held, circuits] = await Promise.all([heldCounts(db), circuitStateCounts(db)]);
  for (const reason of HOLD_REASONS)
    metrics.heldDeliveries.set({ reason }, held.find((h) => h.reason === reason)?.n ?? 0);
  for (const state of NOT_CLOSED)
    metrics.circuits.set({ state }, circuits.find((c) => c.state === state)?.n ?? 0);
  if (!hostLabels) return;
  const top = await topHeldHosts(db, METRICS_TOP_HOSTS);
  // Hosts that left the top list must not linger with their last value.
  metrics.hostHeldDeliveries.reset();
  metrics.hostCircuits.reset();
  for (const h of top) {
    metrics.hostHeldDeliveries.set({ host: h.host }, h.held);
    for (const state of new Set(h.states))
      metrics.hostCircuits.set({ host: h.host, state }, h.states.filter((s) => s === state).length);
  }
}
