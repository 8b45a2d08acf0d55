import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountService, Principal } from '../app/accounts.js';
import { ForbiddenError, RateLimitedError, UnauthorizedError } from '../app/errors.js';
import type { RateLimiter } from '../app/rate-limiter.js';
import { bearerToken, hashApiKey, requiredScope, type Scope } from '../domain/auth/api-key.js';
import {
  evaluate,
  type RateLimitName,
  type RateLimitRule,
  type RateLimitState,
  rule,
  tightest,
} from '../domain/rate-limit/policy.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

export function setRateLimitHeaders(reply: FastifyReply, state: RateLimitState): void {
  void reply.header('X-RateLimit-Limit', String(state.limit));
  void reply.header('X-RateLimit-Remaining', String(state.remaining));
  void reply.header('X-RateLimit-Reset', String(state.reset));
}

/** Counts the request against `rules`, sets the headers of the tightest, and refuses with 429 when any is spent. */
export async function enforceRateLimits(
  limiter: RateLimiter,
  reply: FastifyReply,
  rules: RateLimitRule[],
): Promise<void> {
  const states = await limiter.hit(rules);
  const state = tightest(states);
  setRateLimitHeaders(reply, state);
  if (!state.allowed) throw new RateLimitedError(state.retryAfterSeconds);
}

export interface AuthDeps {
  accounts: AccountService;
  rateLimiter: RateLimiter;
  globalRateLimitFactor: number;
  /** Extra per-route limits for authenticated calls (e.g. creating actions: 100 an hour). */
  routeLimits?: (req: FastifyRequest) => RateLimitName[];
}

/**
 * onRequest hook for `/v1/*`: resolves the Bearer key, counts the request, checks the scope.
 * Runs before the body is read, so refused calls cost no parsing.
 */
export function authenticate(deps: AuthDeps) {
  // `routeScope`: the scope the matched route declares (`admin` for /v1/api-keys), else the method decides.
  return async (request: FastifyRequest, reply: FastifyReply, routeScope?: Scope): Promise<void> => {
    const token = bearerToken(request.headers.authorization);
    const names: RateLimitName[] = ['authenticated', ...(deps.routeLimits?.(request) ?? [])];
    const now = deps.rateLimiter.clock();
    // One statement finds the key's holder and counts the request against the holder's limits.
    const counted = token ? await deps.rateLimiter.hitAsKeyHolder(hashApiKey(token), names, now) : null;
    if (!counted) {
      await enforceRateLimits(deps.rateLimiter, reply, [
        rule('unauthenticated', request.ip, deps.globalRateLimitFactor),
      ]);
      throw new UnauthorizedError(
        token ? 'invalid API key' : 'missing API key: send Authorization: Bearer <key>',
      );
    }
    const principal = deps.accounts.principalOf(counted.holder);
    const factor = deps.globalRateLimitFactor * principal.rateLimitFactor;
    const state = tightest(
      names.map((name) => evaluate(rule(name, principal.accountId, factor), counted.hits(name), now)),
    );
    setRateLimitHeaders(reply, state);
    if (!state.allowed) throw new RateLimitedError(state.retryAfterSeconds);
    const scope = requiredScope(request.method, routeScope);
    if (!principal.scopes.includes(scope))
      throw new ForbiddenError(`this API key lacks the '${scope}' scope`);
    request.principal = principal;
  };
}

/** The caller of an authenticated route; the hook guarantees it is set. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new UnauthorizedError();
  return request.principal;
}
