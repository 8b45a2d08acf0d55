import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountService, Principal } from '../app/accounts.js';
import type { ConsoleSessionService } from '../app/console-sessions.js';
import { ForbiddenError, RateLimitedError, UnauthorizedError } from '../app/errors.js';
import type { RateLimiter } from '../app/rate-limiter.js';
import { bearerToken, hashApiKey, requiredScope, type Scope } from '../domain/auth/api-key.js';
import { CSRF_HEADER, cookieValue, sessionCookieName } from '../domain/auth/console-session.js';
import {
  type RateLimitName,
  type RateLimitRule,
  type RateLimitState,
  rule,
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

/** The limiter's decision as HTTP: the headers of the tightest limit, and a 429 when it is spent. */
function answerRateLimit(reply: FastifyReply, state: RateLimitState): void {
  setRateLimitHeaders(reply, state);
  if (!state.allowed) throw new RateLimitedError(state.retryAfterSeconds);
}

/** Counts the request against `rules`; sets the headers of the tightest, and refuses with 429 when any is spent. */
export async function enforceRateLimits(
  limiter: RateLimiter,
  reply: FastifyReply,
  rules: RateLimitRule[],
  weight = 1,
): Promise<void> {
  answerRateLimit(reply, await limiter.check(rules, weight));
}

export interface AuthDeps {
  accounts: AccountService;
  rateLimiter: RateLimiter;
  globalRateLimitFactor: number;
  /** Extra per-route limits for authenticated calls (e.g. creating actions: 100 an hour). */
  routeLimits?: (req: FastifyRequest) => RateLimitName[];
  /** Console sessions: without a Bearer header, the session cookie stands for the key it was opened with. */
  sessions?: ConsoleSessionService;
  /** The public URL, which decides the session cookie's name (http/console.ts `sessionIdOf`). */
  publicUrl?: () => string;
}

/** Whether the browser reaches this server over https: its public URL says so, or the request (a trusted proxy). */
export function secureRequest(request: FastifyRequest, publicUrl: string): boolean {
  return publicUrl.startsWith('https://') || request.protocol === 'https';
}

/** The console session id a request carries: over https only the `__Host-` cookie counts. */
export function sessionIdOf(request: FastifyRequest, publicUrl: string): string | null {
  return cookieValue(request.headers.cookie, sessionCookieName(secureRequest(request, publicUrl)));
}

/** Constant-time comparison of secrets of any length (both sides hashed first). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

/**
 * The hash of the key a request acts as: its Bearer key, or the key of its console session. A cookie-authenticated
 * write must carry the session's CSRF token in `X-Sched-CSRF` (a page of another origin can make the browser send
 * the cookie, but can neither read the token nor set the header).
 */
async function callerKeyHash(
  request: FastifyRequest,
  deps: AuthDeps,
): Promise<{ keyHash: string | null; refusal: string }> {
  const token = bearerToken(request.headers.authorization);
  if (token) return { keyHash: hashApiKey(token), refusal: 'invalid API key' };
  const missing = { keyHash: null, refusal: 'missing API key: send Authorization: Bearer <key>' };
  const sessionId = deps.sessions ? sessionIdOf(request, deps.publicUrl?.() ?? '') : null;
  if (!sessionId || !deps.sessions) return missing;
  const session = await deps.sessions.keyHashOf(sessionId);
  if (!session) return { keyHash: null, refusal: 'console session expired or ended: sign in again' };
  if (requiredScope(request.method) === 'write') {
    const given = request.headers[CSRF_HEADER];
    if (typeof given !== 'string' || !safeEqual(given, session.view.csrf_token))
      throw new ForbiddenError(`a write with the console session cookie needs its ${CSRF_HEADER} header`);
  }
  // A session whose key was revoked since the lookup is refused by the holder lookup below, like the key itself.
  return { keyHash: session.keyHash, refusal: 'console session expired or ended: sign in again' };
}

/**
 * onRequest hook for `/v1/*`: resolves the Bearer key or console session, counts the request, checks the scope.
 * Runs before the body is read, so refused calls cost no parsing.
 */
export function authenticate(deps: AuthDeps) {
  // `routeScope`: the scope the matched route declares (`admin` for /v1/api-keys), else the method decides.
  return async (request: FastifyRequest, reply: FastifyReply, routeScope?: Scope): Promise<void> => {
    const { keyHash, refusal } = await callerKeyHash(request, deps);
    const names: RateLimitName[] = ['authenticated', ...(deps.routeLimits?.(request) ?? [])];
    // One statement finds the key's holder and counts the request against the holder's limits.
    const admitted = keyHash
      ? await deps.rateLimiter.admitKeyHolder(keyHash, names, deps.globalRateLimitFactor)
      : null;
    if (!admitted) {
      await enforceRateLimits(deps.rateLimiter, reply, [
        rule('unauthenticated', request.ip, deps.globalRateLimitFactor),
      ]);
      throw new UnauthorizedError(refusal);
    }
    const principal = deps.accounts.principalOf(admitted.holder);
    answerRateLimit(reply, admitted.state);
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
