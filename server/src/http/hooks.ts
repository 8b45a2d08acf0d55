import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { RouteMeta } from '@sched/contract';
import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';
import { initServer } from '@ts-rest/fastify';
import {
  type FastifyBaseLogger,
  type FastifyHttpOptions,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import { principalActor, withAuditContext } from '../app/audit.js';
import { ServiceUnavailableError } from '../app/errors.js';
import type { RateLimiter } from '../app/rate-limiter.js';
import { bearerToken } from '../domain/auth/api-key.js';
import {
  ROUTE_LIMIT_SUBJECTS,
  type RateLimitName,
  type RateLimitRule,
  rule,
} from '../domain/rate-limit/policy.js';
import type { TrustProxy } from '../config-proxies.js';
import { mayHoldLoneSurrogate, wellFormed } from '../domain/text/well-formed.js';
import { enforceRateLimits } from './auth.js';
import { requestValidationErrorHandler } from './errors.js';
import type { Authenticate, RouteKit } from './plugin.js';
import { trustedPeer } from './trusted-proxy.js';

// What every request passes, whatever route it reaches: Fastify's options (request ids, limits, timeouts), the JSON
// parser, the cross-cutting hooks, and the mount that gates a contract route by what it declares.

/** Upper bound on a request body; larger ones get 413. Documented in docs/actions.md. */
const DEFAULT_BODY_LIMIT = 1024 * 1024;

export interface ServerSettings {
  logger: Logger;
  bodyLimitBytes?: number;
  /** Which proxies to believe for the client IP (`SCHED_TRUST_PROXY`); request ids are taken only from them. */
  trustProxy: TrustProxy;
  /** Inbound limits (`SCHED_HTTP_*_TIMEOUT_MS`); 0 turns the request and connection ones off. */
  timeouts: { requestMs: number; connectionMs: number; keepAliveMs: number };
}

/** Fastify's options: logging, proxies and request ids, the router's limits, and the inbound timeouts. */
export function serverOptions(settings: ServerSettings): FastifyHttpOptions<Server, FastifyBaseLogger> {
  const { trustProxy, timeouts } = settings;
  const fromProxy = trustedPeer(trustProxy);
  return {
    loggerInstance: settings.logger as FastifyBaseLogger,
    bodyLimit: settings.bodyLimitBytes ?? DEFAULT_BODY_LIMIT,
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
    // Draining is answered by the app's hook, in the error body every other answer has ({ code, message }).
    return503OnClosing: false,
    // One line per request (the app's onResponse hook) instead of Fastify's two: at the default level the second
    // line cost about a tenth of a create's CPU (bench/, docs/performance.md).
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
}

/**
 * JSON bodies: an empty body is no body (many clients send `Content-Type: application/json` on every call, even a
 * DELETE), so body-less routes accept it and routes that need a body answer 422 for it rather than 400. A lone
 * surrogate escape (`"\ud800"`) is replaced by U+FFFD here, once for every route (names, bodies, chain input,
 * trigger values, comments): such text could be neither stored in jsonb nor percent-encoded.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') done(null, undefined);
    else if (!mayHoldLoneSurrogate(text)) parseJson(request, text, done);
    else parseJson(request, text, (error, value) => (error ? done(error) : done(null, wellFormed(value))));
  });
}

/** Once closing starts, new requests are refused with 503 (in-flight ones finish). */
export function registerDraining(app: FastifyInstance): void {
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });
  // Hooks every request passes are written with `done` rather than async: no promise made to be awaited at once.
  app.addHook('onRequest', (_request, _reply, done) => {
    done(
      draining
        ? new ServiceUnavailableError('the server is shutting down; retry on another instance')
        : undefined,
    );
  });
}

/**
 * Who acts and from where, for the audit events the handler's use case records (app/audit.ts). A preHandler runs
 * after authentication and body parsing, so the principal is known and the context reaches the handler.
 */
export function registerAuditContext(app: FastifyInstance): void {
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
}

/**
 * Unmatched paths answer in the API's error body and count against the caller like any API call, so every answer
 * carries the rate-limit headers and a scanner cannot probe paths for free.
 */
export function registerNotFound(
  app: FastifyInstance,
  deps: { auth: Authenticate; rateLimiter: RateLimiter; rateLimitFactor: number },
): void {
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({
      code: 'route_not_found',
      message: `route not found: ${request.method} ${request.url.split('?')[0]}`,
    });
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.is404) return done();
    const counted = bearerToken(request.headers.authorization)
      ? deps.auth(request, reply)
      : enforceRateLimits(deps.rateLimiter, reply, [
          rule('unauthenticated', request.ip, deps.rateLimitFactor),
        ]);
    counted.then(() => done(), done);
  });
}

/** Headers every answer carries, and one log line (and the HTTP metrics) per answered request. */
export function registerResponseHooks(
  app: FastifyInstance,
  observeRequest:
    | ((method: string, routeTemplate: string | undefined, status: number, seconds: number) => void)
    | undefined,
): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    void reply.header('x-request-id', request.id);
    // Answers may hold secrets (a trigger token on create, header values for write keys): never cached,
    // never sniffed into another type. Pages set their own stricter headers.
    void reply.header('x-content-type-options', 'nosniff');
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.includes('json') && !reply.hasHeader('cache-control')) {
      void reply.header('cache-control', 'no-store');
    }
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    observeRequest?.(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    request.log.info(
      { req: request, statusCode: reply.statusCode, responseTime: Math.round(reply.elapsedTime * 10) / 10 },
      'request completed',
    );
    done();
  });
}

/**
 * What the contract declares about a route beyond its shapes: who may call it, which limits it counts, how large a
 * body it reads. The server reads these here instead of matching URL strings, so a route's rules live with the route.
 */
export function routeMeta(route: AppRoute | undefined): RouteMeta {
  return (route?.metadata ?? {}) as RouteMeta;
}

/** The ts-rest route a request matched, if any (the router puts it in the route's config). */
export function contractRouteOf(request: FastifyRequest): AppRoute | undefined {
  return (request.routeOptions.config as { tsRestRoute?: AppRoute } | undefined)?.tsRestRoute;
}

/** The body limit a route outside ts-rest declares in the contract; a route that reads a body declares one. */
export function bodyLimitOf(route: AppRoute): number {
  const limit = routeMeta(route).bodyLimit;
  if (limit === undefined) throw new Error(`${route.method} ${route.path} declares no bodyLimit`);
  return limit;
}

/** The limits the matched route declares for the key holder (`RouteMeta.rateLimits`), besides its own. */
export function declaredRouteLimits(request: FastifyRequest): RateLimitName[] {
  const declared = routeMeta(contractRouteOf(request)).rateLimits ?? [];
  return declared.filter((name) => ROUTE_LIMIT_SUBJECTS[name] === 'account');
}

/**
 * The limits a public route declares, as rules on the client IP and the (hashed) token of its path, in the declared
 * order; counted by the route itself, before its body is read.
 */
export function publicRouteRules(
  route: AppRoute,
  subjects: { ip: string; token: string },
  factor: number,
): RateLimitRule[] {
  return (routeMeta(route).rateLimits ?? []).map((name) => {
    const subject = ROUTE_LIMIT_SUBJECTS[name];
    if (subject === 'account')
      throw new Error(`${route.path}: ${name} counts a key holder, not a public caller`);
    return rule(name, subjects[subject], factor);
  });
}

const s = initServer();

/** The kit's `contract`: each part in a scope of its own, so ts-rest's validation handler replaces no other. */
export function contractMounter(
  app: FastifyInstance,
  deps: Pick<RouteKit, 'auth' | 'probeLimit'> & { validateResponses: boolean },
): RouteKit['contract'] {
  return async (part, router, also) => {
    // ts-rest installs its own error handler for validation failures; the scope keeps it from replacing the root's,
    // and it hands every other error on to the root handler.
    await app.register(async (scope) => {
      // Authentication is decided on the matched route, not on the URL's spelling: the router percent-decodes and
      // accepts absolute-form targets, so `/%761/contacts` or `http://x/v1/contacts` reach the same handlers.
      // Routes declared `auth: 'none'` (the probes) are the only ones let through; everything else fails closed.
      scope.addHook('onRequest', async (request, reply) => {
        const meta = routeMeta(contractRouteOf(request));
        if (meta.auth === 'none') deps.probeLimit(request, reply);
        else await deps.auth(request, reply, meta.scope);
      });
      s.registerRouter(part, router, scope, {
        logInitialization: false,
        responseValidation: deps.validateResponses,
        requestValidationErrorHandler,
      });
      also?.(scope);
    });
  };
}

/**
 * The contract's routes no feature mounted: each feature mounts its own part, so a part left out would answer 404
 * unnoticed; the app refuses to start instead.
 */
export function unmountedRoutes(app: FastifyInstance, router: AppRouter): string[] {
  return Object.values(router).flatMap((entry) =>
    isAppRoute(entry)
      ? app.hasRoute({ method: entry.method, url: entry.path })
        ? []
        : [`${entry.method} ${entry.path}`]
      : unmountedRoutes(app, entry),
  );
}
