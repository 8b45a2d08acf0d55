import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { apiContract, type ChannelState, type RouteMeta } from '@sched/contract';
import { initServer } from '@ts-rest/fastify';
import type { AppRoute } from '@ts-rest/core';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyHttpOptions,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from 'pino';
import type { AccountService } from '../app/accounts.js';
import type { AlertRules } from '../app/alerts/rules.js';
import { type AuditService, principalActor, withAuditContext } from '../app/audit.js';
import type { ActionMoves } from '../app/actions/reschedule.js';
import type { CalendarService } from '../app/calendars/service.js';
import type { ActionReplays } from '../app/actions/replay.js';
import type { PauseService } from '../app/actions/pause.js';
import type { ActionChanges } from '../app/actions/cancel-retry.js';
import type { ActionQueries } from '../app/actions/queries.js';
import type { ActionService } from '../app/actions/service.js';
import type { ActionWaits } from '../app/actions/wait.js';
import type { GrantService } from '../app/grants/service.js';
import type { ReplicaStatus } from '../app/reads.js';
import { grantsHandlers } from './handlers/grants.js';
import type { BulkOperations } from '../app/bulk/service.js';
import type { ChainService } from '../app/chains/service.js';
import type { NotificationChannelService, TeamMemberService } from '../app/directory/chat-and-team.js';
import type { ResponseService } from '../app/approvals/respond.js';
import type { ContactService } from '../app/directory/contacts.js';
import type { ConsoleSessionService } from '../app/console-sessions.js';
import type { Destinations } from '../app/destinations/service.js';
import type { DestinationTests } from '../app/destinations/test-send.js';
import type { DomainService } from '../app/domains/service.js';
import type { QuotaService } from '../app/quota.js';
import type { RateLimiter } from '../app/rate-limiter.js';
import type { TemplateService } from '../app/templates/service.js';
import type { TemplateTrigger } from '../app/templates/trigger.js';
import { RateLimitedError, ServiceUnavailableError } from '../app/errors.js';
import { bearerToken } from '../domain/auth/api-key.js';
import { type RateLimitName, rule } from '../domain/rate-limit/policy.js';
import type { TrustProxy } from '../config.js';
import { SERVER_VERSION } from '../version.js';
import { authenticate, enforceRateLimits, safeEqual, setRateLimitHeaders } from './auth.js';
import { createMemoryLimiter } from './memory-limiter.js';
import { trustedPeer } from './trusted-proxy.js';
import { databaseUnavailable, errorHandler, requestValidationErrorHandler } from './errors.js';
import { actionsHandlers, quotaHandlers, schedulesHandlers } from './handlers/actions.js';
import { alertRulesHandlers } from './handlers/alert-rules.js';
import { bulkOperationsHandlers } from './handlers/bulk-operations.js';
import { chainsHandlers } from './handlers/chains.js';
import { channelsHandlers, remindersHandlers, teamMembersHandlers } from './handlers/approvals.js';
import type { Reassignments } from '../app/approvals/reassign.js';
import type { ReminderRequests } from '../app/approvals/remind.js';
import type { PendingApprovals } from '../app/approvals/pending.js';
import { registerResponseRoutes } from './responses.js';
import { type IntegrationDeps, registerIntegrationRoutes } from './integrations.js';
import { apiKeysHandlers } from './handlers/api-keys.js';
import { outboxHandlers } from './handlers/outbox.js';
import type { OutboxService } from '../app/outbox.js';
import { registerConsoleRoutes } from './console.js';
import { contactsHandlers } from './handlers/contacts.js';
import { calendarsHandlers } from './handlers/calendars.js';
import { templatesHandlers } from './handlers/templates.js';
import { registerTriggerRoute } from './trigger.js';
import { registerMcpRoute } from '../mcp/route.js';
import { mayHoldLoneSurrogate, wellFormed } from '../domain/text/well-formed.js';
import { registerApiReference } from './api-reference.js';
import { registerServiceIndex } from './service-index.js';
import { registerRequestSpans } from './request-spans.js';
import type { Tracing } from '../app/ports.js';
import { registerCors } from './cors.js';
import { registerWriteRecords } from './write-records.js';
import { destinationsHandlers } from './handlers/destinations.js';
import { domainsHandlers } from './handlers/domains.js';
import { auditHandlers, registerAuditExport } from './handlers/audit.js';

export interface HttpDeps {
  logger: Logger;
  accounts: AccountService;
  /** Console sign-ins: the session cookie `/v1` accepts besides the Bearer key. */
  consoleSessions: ConsoleSessionService;
  contacts: ContactService;
  actions: ActionService;
  actionQueries: ActionQueries;
  actionChanges: ActionChanges;
  /** Held `GET /v1/actions/{id}/wait` requests. */
  actionWaits: ActionWaits;
  /** Standing grants (`/v1/grants`). */
  grants: GrantService;
  replays: ActionReplays;
  moves: ActionMoves;
  calendars: CalendarService;
  bulkOperations: BulkOperations;
  destinations: Destinations;
  destinationTests: DestinationTests;
  alertRules: AlertRules;
  pauses: PauseService;
  chains: ChainService;
  quota: QuotaService;
  channels: NotificationChannelService;
  teamMembers: TeamMemberService;
  domains: DomainService;
  audit: AuditService;
  reminders: ReminderRequests;
  reassignments: Reassignments;
  pendingApprovals: PendingApprovals;
  responses: ResponseService;
  templates: TemplateService;
  trigger: TemplateTrigger;
  /** Counts one answered request (HTTP metrics by route template and status class). */
  observeRequest?: (
    method: string,
    routeTemplate: string | undefined,
    status: number,
    seconds: number,
  ) => void;
  /** Prometheus text for GET /metrics; guarded by a token when one is configured. */
  metrics: { render: () => Promise<{ contentType: string; body: string }>; token: string | undefined };
  rateLimiter: RateLimiter;
  rateLimitFactor: number;
  /**
   * Whether an error means the database is away or too slow (and records it, once, for the logs and /readyz): such
   * errors answer 503 with Retry-After instead of 500 with a logged stack.
   */
  databaseFault: (err: unknown) => 'unavailable' | 'slow' | undefined;
  /** Readiness: database reachable and migrations current. */
  readiness: () => Promise<{
    ok: boolean;
    checks: Record<string, string>;
    /** Each notification channel's state (informative: never a failed check). */
    channels?: Record<string, ChannelState>;
    /** The read replica's state, when one is configured (informative: its reads fall back to the primary). */
    readReplica?: ReplicaStatus | undefined;
  }>;
  /**
   * Records an authenticated write of the account before its answer leaves, so its next reads, on any API process,
   * see it (app/reads.ts); absent in tests that build the app alone.
   */
  recordWrite?: (accountId: string) => Promise<void>;
  validateResponses: boolean;
  bodyLimitBytes?: number;
  /** Which proxies to believe for the client IP (`SCHED_TRUST_PROXY`); request ids are taken only from them. */
  trustProxy: TrustProxy;
  /** Browser origins allowed to call /v1 (SCHED_CORS_ORIGINS); empty: no CORS. */
  corsOrigins: string[];
  /** GET /v1/outbox (development servers only). */
  outbox: OutboxService;
  /** SCHED_PUBLIC_URL when set (the API reference names it as the server); otherwise the server is relative. */
  publicUrl: () => string | undefined;
  /** Whether `/docs` (Swagger UI) is served (SCHED_DOCS); `/openapi.json` always is. */
  docs?: boolean;
  /** OpenTelemetry (server/src/tracing.ts): each API request a span. */
  tracing?: Tracing | undefined;
  /** SCHED_PUBLIC_URL or the default local one: an https one makes the console's cookie `__Host-` and `Secure`. */
  siteUrl?: () => string;
  /** NODE_ENV=production (the console refuses sign-in over plain http to a public URL off this machine). */
  production?: boolean;
  /** Inbound limits (`SCHED_HTTP_*_TIMEOUT_MS`); 0 turns the request and connection ones off. */
  timeouts: { requestMs: number; connectionMs: number; keepAliveMs: number };
  /** Answers from Slack app buttons and replies to approval emails (http/integrations.ts), when configured. */
  integrations?: Omit<IntegrationDeps, 'log'>;
}

/**
 * Routes that make actions or send them again, counted against `createAction` (a batch once, as one request). A bulk
 * replay or retry counts when it starts (app/bulk/service.ts): its dry run does not.
 */
const CREATE_ROUTES = new Set([
  '/v1/actions',
  '/v1/actions/batch',
  '/v1/actions/:id/replay',
  '/v1/actions/:id/retry',
]);

/** Upper bound on a request body; larger ones get 413. Documented in docs/actions.md. */
const DEFAULT_BODY_LIMIT = 1024 * 1024;

const s = initServer();

/** The ts-rest route a request matched, if any (the router puts it in the route's config). */
function contractRouteOf(request: FastifyRequest): AppRoute | undefined {
  return (request.routeOptions.config as { tsRestRoute?: AppRoute } | undefined)?.tsRestRoute;
}

export async function buildHttpApp(deps: HttpDeps): Promise<FastifyInstance> {
  const { trustProxy, timeouts } = deps;
  const fromProxy = trustedPeer(trustProxy);
  const options: FastifyHttpOptions<Server, FastifyBaseLogger> = {
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT,
    // Fastify accepts a hop count at run time; its types only omit it.
    trustProxy: trustProxy as FastifyHttpOptions<Server>['trustProxy'],
    // A client could otherwise pick the id every log line of its request carries; only a trusted proxy may.
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' &&
        /^[\w.:-]{1,128}$/.test(given) &&
        fromProxy(req.socket.remoteAddress)
        ? given
        : randomUUID();
    },
    // Long parameters reach the routes (their own 404/422, counted by the rate limits) instead of the
    // router's FST_ERR_MAX_PARAM_LENGTH answer, which echoed the path before any hook ran.
    routerOptions: { maxParamLength: 2048 },
    // Longer ones, and URLs the router cannot decode, are answered here in the API's own error body, without the
    // path (Fastify's default answer echoes it).
    frameworkErrors: (error, _request, reply) => {
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      void (reply as FastifyReply).status(400).send({
        code: 'bad_request',
        message: tooLong ? 'a path parameter is longer than 2048 characters' : 'the URL is not valid',
      });
    },
    // Draining is answered by the hook below, in the error body every other answer has ({ code, message }).
    return503OnClosing: false,
    // One line per request (below) instead of Fastify's two: at the default level the second line cost about a
    // tenth of a create's CPU (bench/, docs/performance.md).
    logController: new LogController({ disableRequestLogging: true }),
    // Slow-body clients (slowloris) are cut off; Node checks these deadlines every connectionsCheckingInterval.
    requestTimeout: timeouts.requestMs,
    connectionTimeout: timeouts.connectionMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: {
      ...(timeouts.requestMs > 0 ? { headersTimeout: Math.min(timeouts.requestMs, 60_000) } : {}),
      connectionsCheckingInterval: Math.max(
        100,
        Math.min(30_000, Math.floor((timeouts.requestMs || 30_000) / 4)),
      ),
    },
  };
  const app = Fastify(options);
  app.setErrorHandler((error, request, reply) => {
    const fault = deps.databaseFault(error);
    if (fault) databaseUnavailable(reply, fault);
    else errorHandler(error as Error, request, reply);
  });
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });
  app.addHook('onRequest', async () => {
    if (draining) throw new ServiceUnavailableError('the server is shutting down; retry on another instance');
  });
  registerJsonParser(app);
  // Who acts and from where, for the audit events the handler's use case records (app/audit.ts). A preHandler runs
  // after authentication and body parsing, so the principal is known and the context reaches the handler.
  app.addHook('preHandler', (request, _reply, done) => {
    const ua = request.headers['user-agent'];
    withAuditContext(
      {
        actor: request.principal ? principalActor(request.principal.keyId) : null,
        ip: request.ip,
        user_agent: typeof ua === 'string' ? ua : undefined,
        request_id: request.id,
      },
      done,
    );
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({
      code: 'route_not_found',
      message: `route not found: ${request.method} ${request.url.split('?')[0]}`,
    });
  });
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
    // Answers may hold secrets (a trigger token on create, header values for write keys): never cached,
    // never sniffed into another type. Pages set their own stricter headers.
    void reply.header('x-content-type-options', 'nosniff');
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.includes('json') && !reply.hasHeader('cache-control')) {
      void reply.header('cache-control', 'no-store');
    }
  });
  if (deps.recordWrite) registerWriteRecords(app, deps.recordWrite);
  await registerCors(app, deps.corsOrigins);
  registerRequestSpans(app, deps.tracing);
  app.addHook('onResponse', async (request, reply) => {
    deps.observeRequest?.(
      request.method,
      request.routeOptions.url,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    request.log.info(
      { req: request, statusCode: reply.statusCode, responseTime: Math.round(reply.elapsedTime * 10) / 10 },
      'request completed',
    );
  });

  const routeLimits = (req: { method: string; routeOptions: { url?: string } }): RateLimitName[] =>
    req.method === 'POST' && CREATE_ROUTES.has(req.routeOptions.url ?? '') ? ['createAction'] : [];

  const siteUrl = deps.siteUrl ?? (() => deps.publicUrl() ?? '');
  const auth = authenticate({
    accounts: deps.accounts,
    rateLimiter: deps.rateLimiter,
    globalRateLimitFactor: deps.rateLimitFactor,
    routeLimits,
    sessions: deps.consoleSessions,
    publicUrl: siteUrl,
  });
  const probes = createMemoryLimiter();
  const probeLimit = (request: FastifyRequest, reply: FastifyReply) => {
    const state = probes.hit(rule('operational', request.ip, deps.rateLimitFactor), new Date());
    setRateLimitHeaders(reply, state);
    if (!state.allowed) throw new RateLimitedError(state.retryAfterSeconds);
  };
  // Unmatched paths (whatever their spelling) count against the caller like any API call, so every answer
  // carries the rate-limit headers and a scanner cannot probe paths for free.
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    if (bearerToken(request.headers.authorization)) await auth(request, reply);
    else
      await enforceRateLimits(deps.rateLimiter, reply, [
        rule('unauthenticated', request.ip, deps.rateLimitFactor),
      ]);
  });

  app.get(
    '/metrics',
    { onRequest: async (request, reply) => probeLimit(request, reply) },
    async (request, reply) => {
      const token = deps.metrics.token;
      if (token && !safeEqual(request.headers.authorization ?? '', `Bearer ${token}`)) {
        return reply.status(401).send({
          code: 'unauthorized',
          message: 'metrics need Authorization: Bearer <SCHED_METRICS_TOKEN>',
        });
      }
      const out = await deps.metrics.render();
      return reply.header('content-type', out.contentType).send(out.body);
    },
  );

  await registerResponseRoutes(app, {
    responses: deps.responses,
    rateLimiter: deps.rateLimiter,
    rateLimitFactor: deps.rateLimitFactor,
  });

  await registerIntegrationRoutes(app, { ...deps.integrations, log: deps.logger });

  registerApiReference(app, { publicUrl: deps.publicUrl, limit: probeLimit, docs: deps.docs });
  registerServiceIndex(app, { publicUrl: deps.publicUrl, limit: probeLimit, docs: deps.docs });
  registerConsoleRoutes(app, {
    sessions: deps.consoleSessions,
    rateLimiter: deps.rateLimiter,
    rateLimitFactor: deps.rateLimitFactor,
    publicUrl: siteUrl,
    production: deps.production === true,
  });

  registerMcpRoute(app, {
    auth,
    useCases: {
      actions: deps.actions,
      queries: deps.actionQueries,
      changes: deps.actionChanges,
      waits: deps.actionWaits,
      pending: deps.pendingApprovals,
    },
  });

  await registerTriggerRoute(app, {
    trigger: deps.trigger,
    rateLimiter: deps.rateLimiter,
    rateLimitFactor: deps.rateLimitFactor,
  });

  const router = s.router(apiContract, {
    system: {
      healthz: async () => ({ status: 200, body: { status: 'ok', version: SERVER_VERSION } }),
      readyz: async () => {
        const r = await deps.readiness();
        // The channels' states describe a server that can serve: an unavailable one answers its checks only.
        return r.ok
          ? {
              status: 200,
              body: {
                status: 'ok',
                version: SERVER_VERSION,
                checks: r.checks,
                channels: r.channels,
                ...(r.readReplica ? { read_replica: r.readReplica } : {}),
              },
            }
          : { status: 503, body: { status: 'unavailable', version: SERVER_VERSION, checks: r.checks } };
      },
    },
    contacts: contactsHandlers(deps.contacts),
    actions: actionsHandlers(
      deps.actions,
      deps.actionQueries,
      deps.actionChanges,
      deps.pauses,
      deps.replays,
      {
        limiter: deps.rateLimiter,
        factor: deps.rateLimitFactor,
      },
      deps.moves,
      deps.actionWaits,
    ),
    chains: chainsHandlers(deps.chains),
    quota: quotaHandlers(deps.quota),
    schedules: schedulesHandlers(() => new Date(), deps.calendars),
    calendars: calendarsHandlers(deps.calendars),
    channels: channelsHandlers(deps.channels),
    teamMembers: teamMembersHandlers(deps.teamMembers),
    templates: templatesHandlers(deps.templates),
    domains: domainsHandlers(deps.domains),
    bulkOperations: bulkOperationsHandlers(deps.bulkOperations),
    destinations: destinationsHandlers(deps.destinations, deps.destinationTests),
    alertRules: alertRulesHandlers(deps.alertRules),
    apiKeys: apiKeysHandlers(deps.accounts),
    audit: auditHandlers(deps.audit),
    reminders: remindersHandlers(
      deps.reminders,
      deps.reassignments,
      deps.actionQueries,
      deps.pendingApprovals,
    ),
    outbox: outboxHandlers(deps.outbox),
    grants: grantsHandlers(deps.grants),
  });
  // ts-rest installs its own error handler for validation failures; a child scope keeps it from replacing ours,
  // and it hands every other error on to the root handler.
  await app.register(async (scope) => {
    // Authentication is decided on the matched route, not on the URL's spelling: the router percent-decodes and
    // accepts absolute-form targets, so `/%761/contacts` or `http://x/v1/contacts` reach the same handlers.
    // Routes declared `auth: 'none'` (the probes) are the only ones let through; everything else fails closed.
    scope.addHook('onRequest', async (request, reply) => {
      const meta = contractRouteOf(request)?.metadata as RouteMeta | undefined;
      if (meta?.auth === 'none') probeLimit(request, reply);
      else await auth(request, reply, meta?.scope);
    });
    s.registerRouter(apiContract, router, scope, {
      logInitialization: false,
      responseValidation: deps.validateResponses,
      requestValidationErrorHandler,
    });
    registerAuditExport(scope, deps.audit);
  });
  return app;
}

/**
 * JSON bodies: an empty body is no body (many clients send `Content-Type: application/json` on every call, even a
 * DELETE), so body-less routes accept it and routes that need a body answer 422 for it rather than 400. A lone
 * surrogate escape (`"\ud800"`) is replaced by U+FFFD here, once for every route (names, bodies, chain input,
 * trigger values, comments): such text could be neither stored in jsonb nor percent-encoded.
 */
function registerJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') done(null, undefined);
    else if (!mayHoldLoneSurrogate(text)) parseJson(request, text, done);
    else parseJson(request, text, (error, value) => (error ? done(error) : done(null, wellFormed(value))));
  });
}
