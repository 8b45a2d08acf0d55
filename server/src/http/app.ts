import { apiContract } from '@sched/contract';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { AccountService } from '../app/accounts.js';
import type { ConsoleSessionService } from '../app/console-sessions.js';
import { RateLimitedError } from '../app/errors.js';
import type { Clock, Tracing } from '../app/ports.js';
import type { RateLimiter } from '../app/rate-limiter.js';
import { rule } from '../domain/rate-limit/policy.js';
import { authenticate, setRateLimitHeaders } from './auth.js';
import { registerCors } from './cors.js';
import { databaseUnavailable, errorHandler } from './errors.js';
import {
  contractMounter,
  declaredRouteLimits,
  registerAuditContext,
  registerDraining,
  registerJsonParser,
  registerNotFound,
  registerResponseHooks,
  type ServerSettings,
  serverOptions,
  unmountedRoutes,
} from './hooks.js';
import { createMemoryLimiter } from './memory-limiter.js';
import type { HttpPlugin, RouteKit } from './plugin.js';
import { registerRequestSpans } from './request-spans.js';
import { registerWriteRecords } from './write-records.js';

/** What the HTTP app itself needs: the server's settings and the cross-cutting hooks' parts. Routes are plugins'. */
export interface HttpServer extends ServerSettings {
  clock: Clock;
  accounts: AccountService;
  /** Console sign-ins: the session cookie `/v1` accepts besides the Bearer key. */
  consoleSessions: ConsoleSessionService;
  rateLimiter: RateLimiter;
  rateLimitFactor: number;
  /** SCHED_PUBLIC_URL or the default local one: it names the console's session cookie. */
  siteUrl: () => string;
  /**
   * Whether an error means the database is away or too slow (and records it, once, for the logs and /readyz): such
   * errors answer 503 with Retry-After instead of 500 with a logged stack.
   */
  databaseFault: (err: unknown) => 'unavailable' | 'slow' | undefined;
  validateResponses: boolean;
  /** Browser origins allowed to call /v1 (SCHED_CORS_ORIGINS); empty: no CORS. */
  corsOrigins: string[];
  /** OpenTelemetry (server/src/tracing.ts): each API request a span. */
  tracing?: Tracing | undefined;
  /**
   * Records an authenticated write of the account before its answer leaves, so its next reads, on any API process,
   * see it (app/reads.ts); absent in tests that build the app alone.
   */
  recordWrite?: (accountId: string) => Promise<void>;
  /** Counts one answered request (HTTP metrics by route template and status class). */
  observeRequest?: (method: string, route: string | undefined, status: number, seconds: number) => void;
}

/**
 * The HTTP app: Fastify's options, then the hooks every request passes (draining, errors, JSON, CORS, spans, logs,
 * authentication's parts, the 404), then each feature's plugin in order (`server/src/features/`).
 */
export async function buildHttpApp(
  server: HttpServer,
  plugins: readonly HttpPlugin[],
): Promise<FastifyInstance> {
  const app = Fastify(serverOptions(server));
  app.setErrorHandler((error, request, reply) => {
    const fault = server.databaseFault(error);
    if (fault) databaseUnavailable(reply, fault);
    else errorHandler(error as Error, request, reply);
  });
  registerDraining(app);
  registerJsonParser(app);
  registerAuditContext(app);
  registerResponseHooks(app, server.observeRequest);
  if (server.recordWrite) registerWriteRecords(app, server.recordWrite);
  await registerCors(app, server.corsOrigins);
  registerRequestSpans(app, server.tracing);

  const { rateLimiter, rateLimitFactor } = server;
  const auth = authenticate({
    accounts: server.accounts,
    rateLimiter,
    globalRateLimitFactor: rateLimitFactor,
    // The limits a route declares in the contract (`RouteMeta.rateLimits`), besides the key holder's own.
    routeLimits: declaredRouteLimits,
    sessions: server.consoleSessions,
    publicUrl: server.siteUrl,
  });
  const probes = createMemoryLimiter();
  const probeLimit = (request: FastifyRequest, reply: FastifyReply) => {
    const state = probes.hit(rule('operational', request.ip, rateLimitFactor), server.clock());
    setRateLimitHeaders(reply, state);
    if (!state.allowed) throw new RateLimitedError(state.retryAfterSeconds);
  };
  registerNotFound(app, { auth, rateLimiter, rateLimitFactor });

  const kit: RouteKit = {
    auth,
    probeLimit,
    rateLimiter,
    rateLimitFactor,
    contract: contractMounter(app, { auth, probeLimit, validateResponses: server.validateResponses }),
  };
  for (const plugin of plugins) await plugin.register(app, kit);
  const missing = unmountedRoutes(app, apiContract);
  if (missing.length > 0) throw new Error(`no feature mounts ${missing.join(', ')}`);
  return app;
}
