import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/**
 * Cross-origin calls to /v1 from the browser origins SCHED_CORS_ORIGINS lists (off when it is unset, the default):
 * preflights are answered, the SDK's headers allowed and the rate-limit headers readable. Keys travel in the
 * Authorization header, never in cookies, so no credentials mode is offered. Other paths (response pages, the
 * trigger, the console) stay same-origin.
 */
export async function registerCors(app: FastifyInstance, origins: string[]): Promise<void> {
  if (origins.length === 0) return;
  const v1 = {
    origin: origins.includes('*') ? '*' : origins,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'idempotency-key', 'x-request-id'],
    exposedHeaders: [
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'retry-after',
      'x-request-id',
    ],
    credentials: false,
    maxAge: 600,
    strictPreflight: true,
  };
  await app.register(cors, {
    delegator: (request, callback) =>
      callback(null, /^\/v1(\/|\?|$)/.test(request.url) ? v1 : { origin: false }),
  });
}
