import type { AppRouter } from '@ts-rest/core';
import type { RouterImplementation } from '@ts-rest/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimiter } from '../app/rate-limiter.js';
import type { Scope } from '../domain/auth/api-key.js';

/** Authenticates a request as `/v1` does (Bearer key or console session) and counts it; `scope`: the one it needs. */
export type Authenticate = (request: FastifyRequest, reply: FastifyReply, scope?: Scope) => Promise<void>;

/**
 * What the HTTP app hands each feature's routes: the cross-cutting parts a route may need, and the one way to mount a
 * part of the contract. A feature takes its use cases from the composition root, not from here.
 */
export interface RouteKit {
  /**
   * Mounts a part of the contract behind what each route's metadata declares (`RouteMeta`: `auth: 'none'` routes
   * take the probes' limit, every other one the key or session, its `scope` and its `rateLimits`). `also` adds routes
   * outside ts-rest behind the same authentication (a streamed export).
   */
  contract<T extends AppRouter>(
    part: T,
    router: RouterImplementation<T>,
    also?: (scope: FastifyInstance) => void,
  ): Promise<void>;
  auth: Authenticate;
  /** The unauthenticated probes' limit, per client IP and in memory (health, metrics, the API reference). */
  probeLimit(request: FastifyRequest, reply: FastifyReply): void;
  rateLimiter: RateLimiter;
  /** SCHED_RATE_LIMIT_FACTOR: every limit's factor. */
  rateLimitFactor: number;
}

/** One feature's HTTP side: registers its routes on the app (a public route adds its own limits). */
export interface HttpPlugin {
  name: string;
  register(app: FastifyInstance, kit: RouteKit): void | Promise<void>;
}
