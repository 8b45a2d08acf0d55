import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Tracing } from '../app/ports.js';

type RequestSpan = ReturnType<Tracing['request']>;

/**
 * Each API request (`/v1/...`) and trigger (`/t/...`) is a span when tracing is on, named by its route (never by its
 * path, which may hold a token). The request's `traceparent` header is replaced by the span's own before any handler
 * reads it, so what the request creates stores the API span, and the delivery's span, days later, links to it.
 */
export function registerRequestSpans(app: FastifyInstance, tracing: Tracing | undefined): void {
  if (!tracing) return;
  const spans = new WeakMap<FastifyRequest, RequestSpan>();
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/v1/') && !request.url.startsWith('/t/')) return;
    const incoming = request.headers.traceparent;
    const span = tracing.request({
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      traceparent: typeof incoming === 'string' ? incoming : null,
    });
    spans.set(request, span);
    request.headers.traceparent = span.traceparent;
  });
  app.addHook('onResponse', async (request, reply) => {
    spans.get(request)?.end(reply.statusCode);
  });
}
