import { parse as parseQueryString } from 'node:querystring';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RateLimiter } from '../app/rate-limiter.js';
import type { TemplateTrigger } from '../app/templates/trigger.js';
import { hashTriggerToken } from '../domain/template/token.js';
import { contract } from '@sched/contract';
import { enforceRateLimits, setRateLimitHeaders } from './auth.js';
import { publicRouteRules } from './hooks.js';

type TriggerRequest = FastifyRequest<{ Params: { token: string } }>;

/**
 * An HTML form's fields as a trigger body: each field once (the last wins), and `schedule.wait`,
 * `schedule.preset`, `schedule.timezone` gathered into `schedule` (a form cannot post an object).
 */
export function formToTriggerBody(
  fields: Record<string, string | string[] | undefined>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const schedule: Record<string, string> = {};
  for (const [key, raw] of Object.entries(fields)) {
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    if (value === undefined) continue;
    if (key.startsWith('schedule.')) {
      if (value !== '') schedule[key.slice('schedule.'.length)] = value;
    } else body[key] = value;
  }
  if (Object.keys(schedule).length > 0) body.schedule = schedule;
  return body;
}

/**
 * `POST /t/<token>`: public, authenticated by the token. Both limits (120 a minute per client IP, 60 per
 * token) are counted before the body is read, with the rate-limit headers; errors go to the root error handler.
 * Request logs redact the token (logger.ts).
 */
export async function registerTriggerRoute(
  parent: FastifyInstance,
  deps: { trigger: TemplateTrigger; rateLimiter: RateLimiter; rateLimitFactor: number },
): Promise<void> {
  await parent.register(async (app) => {
    // Forms post urlencoded; in this scope their fields become a trigger body.
    await app.register(formbody, { parser: (body) => formToTriggerBody(parseQueryString(body)) });
    app.addHook('onRequest', async (request: TriggerRequest, reply) => {
      const subjects = { ip: request.ip, token: hashTriggerToken(request.params.token) };
      await enforceRateLimits(
        deps.rateLimiter,
        reply,
        publicRouteRules(contract.trigger.trigger, subjects, deps.rateLimitFactor),
      );
    });
    app.post('/t/:token', async (request: TriggerRequest, reply) => {
      // The headers show the tightest limit: the token's and the IP's (counted above) or the template's own caps.
      const answer = await deps.trigger.trigger(request.params.token, request.body, (state) => {
        const shown = Number(reply.getHeader('X-RateLimit-Remaining'));
        if (!Number.isFinite(shown) || state.remaining < shown || !state.allowed)
          setRateLimitHeaders(reply, state);
      });
      return reply.status(201).send(answer);
    });
  });
}
