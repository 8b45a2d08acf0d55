import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SERVER_VERSION } from '../version.js';

/**
 * Whether an Accept header asks for a page: a browser sends `text/html` first; a client that names JSON, or nothing,
 * gets JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const html = accept.indexOf('text/html');
  const json = accept.indexOf('application/json');
  return html !== -1 && (json === -1 || html < json);
}

/** The service's index: where a newcomer (or a client) goes from `/`; the API reference when it is served. */
export function serviceIndex(base: string, docs: boolean) {
  return {
    name: 'sched',
    version: SERVER_VERSION,
    links: {
      console: `${base}/console`,
      ...(docs ? { api_reference: `${base}/docs` } : {}),
      openapi: `${base}/openapi.json`,
      actions: `${base}/v1/actions`,
      health: `${base}/healthz`,
      readiness: `${base}/readyz`,
      metrics: `${base}/metrics`,
    },
  };
}

/**
 * `/`: a browser is sent to the console, any other client gets the JSON index of the service's links, so the first
 * request of a newcomer is never a 404.
 */
export function registerServiceIndex(
  app: FastifyInstance,
  deps: {
    publicUrl: () => string | undefined;
    /** Whether `/docs` is served (SCHED_DOCS). */
    docs?: boolean | undefined;
    limit: (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>;
  },
): void {
  app.get(
    '/',
    { onRequest: async (request, reply) => deps.limit(request, reply) },
    async (request, reply) => {
      reply.header('vary', 'accept').header('cache-control', 'no-cache');
      if (prefersHtml(request.headers.accept)) return reply.redirect('/console', 302);
      return reply.send(
        serviceIndex(deps.publicUrl() ?? `${request.protocol}://${request.host}`, deps.docs !== false),
      );
    },
  );
}
