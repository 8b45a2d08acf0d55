import type { RouteMeta } from '@sched/contract';
import type { AppRoute } from '@ts-rest/core';
import type { FastifyRequest } from 'fastify';

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
