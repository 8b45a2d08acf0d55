import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import {
  LogController,
  type FastifyBaseLogger,
  type FastifyHttpOptions,
  type FastifyInstance,
  type FastifyReply,
} from 'fastify';
import type { Logger } from 'pino';
import type { TrustProxy } from '../config.js';
import { mayHoldLoneSurrogate, wellFormed } from '../domain/text/well-formed.js';
import { trustedPeer } from './trusted-proxy.js';

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
