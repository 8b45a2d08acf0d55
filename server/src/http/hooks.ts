import type { FastifyInstance } from 'fastify';
import { principalActor, withAuditContext } from '../app/audit.js';
import { ServiceUnavailableError } from '../app/errors.js';
import type { RateLimiter } from '../app/rate-limiter.js';
import { bearerToken } from '../domain/auth/api-key.js';
import { rule } from '../domain/rate-limit/policy.js';
import { enforceRateLimits } from './auth.js';
import type { Authenticate } from './plugin.js';

/** Once closing starts, new requests are refused with 503 (in-flight ones finish). */
export function registerDraining(app: FastifyInstance): void {
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });
  app.addHook('onRequest', async () => {
    if (draining) throw new ServiceUnavailableError('the server is shutting down; retry on another instance');
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
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    if (bearerToken(request.headers.authorization)) await deps.auth(request, reply);
    else
      await enforceRateLimits(deps.rateLimiter, reply, [
        rule('unauthenticated', request.ip, deps.rateLimitFactor),
      ]);
  });
}

/** Headers every answer carries, and one log line (and the HTTP metrics) per answered request. */
export function registerResponseHooks(
  app: FastifyInstance,
  observeRequest:
    | ((method: string, routeTemplate: string | undefined, status: number, seconds: number) => void)
    | undefined,
): void {
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
  app.addHook('onResponse', async (request, reply) => {
    observeRequest?.(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    request.log.info(
      { req: request, statusCode: reply.statusCode, responseTime: Math.round(reply.elapsedTime * 10) / 10 },
      'request completed',
    );
  });
}
