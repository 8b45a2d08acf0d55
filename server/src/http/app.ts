import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { apiContract } from '@sched/contract';
import { initServer } from '@ts-rest/fastify';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { AccountService } from '../app/accounts.js';
import type { ActionService } from '../app/actions/service.js';
import type { NotificationChannelService, TeamMemberService } from '../app/approvals/directory.js';
import type { ResponseService } from '../app/approvals/respond.js';
import type { ContactService } from '../app/contacts.js';
import type { DomainService } from '../app/domains/service.js';
import type { QuotaService } from '../app/quota.js';
import type { RateLimiter } from '../app/rate-limiter.js';
import type { RateLimitName } from '../domain/rate-limit/policy.js';
import { authenticate } from './auth.js';
import { errorHandler, requestValidationErrorHandler } from './errors.js';
import { actionsHandlers, quotaHandlers } from './handlers/actions.js';
import { channelsHandlers, teamMembersHandlers } from './handlers/approvals.js';
import { registerResponseRoutes } from './responses.js';
import { contactsHandlers } from './handlers/contacts.js';
import { domainsHandlers } from './handlers/domains.js';

export interface HttpDeps {
  logger: Logger;
  accounts: AccountService;
  contacts: ContactService;
  actions: ActionService;
  quota: QuotaService;
  channels: NotificationChannelService;
  teamMembers: TeamMemberService;
  domains: DomainService;
  responses: ResponseService;
  /** Prometheus text for GET /metrics; guarded by a token when one is configured. */
  metrics: { render: () => Promise<{ contentType: string; body: string }>; token: string | undefined };
  rateLimiter: RateLimiter;
  rateLimitFactor: number;
  /** Readiness: database reachable and migrations current. */
  readiness: () => Promise<{ ok: boolean; checks: Record<string, string> }>;
  validateResponses: boolean;
  bodyLimitBytes?: number;
}

/** Upper bound on a request body; larger ones get 413. Documented in docs/actions.md. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

const s = initServer();

export async function buildHttpApp(deps: HttpDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT,
    trustProxy: false,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    return503OnClosing: true,
  });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) => {
    void reply
      .status(404)
      .send({ message: `route not found: ${request.method} ${request.url.split('?')[0]}` });
  });
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });

  const routeLimits = (req: { method: string; routeOptions: { url?: string } }): RateLimitName[] =>
    req.method === 'POST' && req.routeOptions.url === '/v1/actions' ? ['createAction'] : [];

  const auth = authenticate({
    accounts: deps.accounts,
    rateLimiter: deps.rateLimiter,
    globalRateLimitFactor: deps.rateLimitFactor,
    routeLimits,
  });
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/v1/') || request.url === '/v1') await auth(request, reply);
  });

  app.get('/metrics', async (request, reply) => {
    const token = deps.metrics.token;
    if (token && !safeEqual(request.headers.authorization ?? '', `Bearer ${token}`)) {
      return reply.status(401).send({ message: 'metrics need Authorization: Bearer <SCHED_METRICS_TOKEN>' });
    }
    const out = await deps.metrics.render();
    return reply.header('content-type', out.contentType).send(out.body);
  });

  registerResponseRoutes(app, {
    responses: deps.responses,
    rateLimiter: deps.rateLimiter,
    rateLimitFactor: deps.rateLimitFactor,
  });

  const router = s.router(apiContract, {
    system: {
      healthz: async () => ({ status: 200, body: { status: 'ok' } }),
      readyz: async () => {
        const r = await deps.readiness();
        return r.ok
          ? { status: 200, body: { status: 'ok', checks: r.checks } }
          : { status: 503, body: { status: 'unavailable', checks: r.checks } };
      },
    },
    contacts: contactsHandlers(deps.contacts),
    actions: actionsHandlers(deps.actions),
    quota: quotaHandlers(deps.quota),
    channels: channelsHandlers(deps.channels),
    teamMembers: teamMembersHandlers(deps.teamMembers),
    domains: domainsHandlers(deps.domains),
  });
  // ts-rest installs its own error handler for validation failures; a child scope keeps it from replacing ours,
  // and it hands every other error on to the root handler.
  await app.register(async (scope) => {
    s.registerRouter(apiContract, router, scope, {
      logInitialization: false,
      responseValidation: deps.validateResponses,
      requestValidationErrorHandler,
    });
  });
  return app;
}

/** Constant-time comparison of secrets of any length (both sides hashed first). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}
