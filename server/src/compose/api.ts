import type { FastifyInstance } from 'fastify';
import { ActionWaits } from '../app/actions/wait.js';
import { ActionWatch } from '../app/actions/watch.js';
import { PendingApprovals } from '../app/approvals/pending.js';
import { ResponseService } from '../app/approvals/respond.js';
import { BulkOperations } from '../app/bulk/service.js';
import { CalendarService } from '../app/calendars/service.js';
import { ChainService } from '../app/chains/service.js';
import { ConsoleSessionService } from '../app/console-sessions.js';
import type { ApiRuntime, SharedServices } from '../features/feature.js';
import { FEATURES } from '../features/index.js';
import { buildHttpApp } from '../http/app.js';
import { createBulkOperationQueue } from '../jobs/bulk-operations.js';
import { routeLabel } from '../metrics.js';
import { ACTION_CHANGED_CHANNEL } from '../persistence/entities/action.js';
import type { ServiceContext } from './context.js';
import type { Shutdown } from './shutdown.js';

/**
 * The API role: the HTTP app with every feature's routes (server/src/features/), listening. Answers the app and the
 * address it bound. `firing()` reads the delivery gauges of this process's worker, when it runs one.
 */
export async function startApi(
  ctx: ServiceContext,
  shutdown: Shutdown,
  firing: ApiRuntime['firing'],
): Promise<{ http: FastifyInstance; port: number | undefined }> {
  const { config, db, clock, metrics, logger } = ctx;
  const shared = sharedServices(ctx, shutdown);
  const runtime: ApiRuntime = { ctx, shutdown, shared, firing };
  const http = await buildHttpApp(
    {
      logger,
      clock,
      accounts: ctx.accounts,
      consoleSessions: shared.consoleSessions,
      rateLimiter: ctx.rateLimiter,
      rateLimitFactor: config.rateLimitFactor,
      siteUrl: ctx.publicUrl,
      corsOrigins: config.corsOrigins,
      tracing: ctx.tracing,
      validateResponses: config.validateResponses,
      trustProxy: config.trustProxy,
      timeouts: {
        requestMs: config.httpRequestTimeoutMs,
        connectionMs: config.httpConnectionTimeoutMs,
        keepAliveMs: config.httpKeepAliveTimeoutMs,
      },
      databaseFault: (err) => db.availability.answerFor(err),
      // Without a replica no read can lag behind a write: no hook on every answer to record it.
      ...(ctx.reads.recordsWrites ? { recordWrite: (accountId: string) => ctx.reads.wrote(accountId) } : {}),
      observeRequest: (method, route, status, seconds) =>
        metrics.httpRequests.observe(
          { method, route: routeLabel(route), status_class: `${Math.floor(status / 100)}xx` },
          seconds,
        ),
    },
    FEATURES.flatMap((feature) => {
      const routes = feature.routes?.bind(feature);
      return routes ? [{ name: feature.name, register: (app, kit) => routes(app, kit, runtime) }] : [];
    }),
  );
  // Stops taking requests before anything else stops; in-flight ones finish.
  shutdown.add('the HTTP listener', () => http.close(), { first: true });
  await http.listen({ host: config.host, port: config.port });
  const bound = http.server.address();
  return { http, port: bound && typeof bound === 'object' ? bound.port : undefined };
}

/** The use cases more than one feature answers with (or the HTTP app's authentication reads), built once. */
function sharedServices(ctx: ServiceContext, shutdown: Shutdown): SharedServices {
  const { config, clock, waits } = ctx;
  const database = ctx.db.main;
  const watch = new ActionWatch({ channel: ACTION_CHANGED_CHANNEL, feed: () => ctx.listen.get() });
  const actionWaits = new ActionWaits({ actions: ctx.actionQueries, watch, clock, timers: ctx.timers });
  // Before the listener's close: held waits answer at once instead of keeping the stop waiting for their timeout.
  shutdown.add('the held waits', () => actionWaits.close(), { first: true });
  return {
    actionWaits,
    chains: new ChainService(database, ctx.chainEngine(database), ctx.chainCallbacks, clock, {
      allowPrivateDestinations: config.allowPrivateDestinations,
      countDestination: ctx.countDestination,
      transitions: { callbacks: ctx.callbacks, scheduler: ctx.scheduler },
    }),
    bulkOperations: new BulkOperations(database, createBulkOperationQueue(ctx.queue), clock, {
      limiter: ctx.rateLimiter,
      globalFactor: config.rateLimitFactor,
    }),
    responses: new ResponseService({
      db: database,
      scheduler: ctx.scheduler,
      callbacks: ctx.callbacks,
      clock,
      waits,
      timers: ctx.timers,
      tracing: ctx.tracing,
    }),
    pendingApprovals: new PendingApprovals({ store: database, clock, waits }),
    calendars: new CalendarService({ store: database, clock }),
    consoleSessions: new ConsoleSessionService(database, clock),
  };
}
