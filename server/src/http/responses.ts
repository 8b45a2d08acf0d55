import formbody from '@fastify/formbody';
import { contract, Uuid } from '@sched/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AppError,
  errorBody,
  GoneError,
  RequesterError,
  NotFoundError,
  RateLimitedError,
  ValidationError,
} from '../app/errors.js';
import type { RateLimiter } from '../app/rate-limiter.js';
import type { ResponseService } from '../app/approvals/respond.js';
import { hashResponseToken } from '../domain/approval/response-token.js';
import { enforceRateLimits } from './auth.js';
import { publicRouteRules } from './hooks.js';
import { parseAnswer } from './answer.js';
import { grantChoices } from './pages/fields.js';
import {
  approvalsNeededText,
  renderErrorPage,
  renderGonePage,
  renderResponsePage,
  renderResultPage,
} from './pages/render.js';
import { PAGE_HEADERS } from './pages/document.js';

const SNOOZE_CHOICES = [
  { value: '15m', label: '15 minutes' },
  { value: '1h', label: '1 hour' },
  { value: '4h', label: '4 hours' },
  { value: '1d', label: '1 day' },
];

type TokenRequest = FastifyRequest<{ Params: { token: string; id?: string } }>;

/** JSON when the client asks for it (and not for HTML); pages otherwise. */
function wantsJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  const type = request.headers['content-type'] ?? '';
  if (accept.includes('text/html')) return false;
  return accept.includes('application/json') || type.includes('application/json');
}

/**
 * The login-free response links `/r/<token>`. GET renders the page and never changes state (mail
 * scanners open links); POST records the answer, from the page's form or as JSON, validated by the contract's
 * `ResponseInput`. Limits (per IP, then 10 a minute per link) are counted before the body is read.
 */
export async function registerResponseRoutes(
  parent: FastifyInstance,
  deps: { responses: ResponseService; rateLimiter: RateLimiter; rateLimitFactor: number },
) {
  // A scope of their own: the page's urlencoded form is accepted on these routes only.
  await parent.register(async (app) => {
    await app.register(formbody);
    routes(app, deps);
  });
}

function routes(
  app: FastifyInstance,
  deps: { responses: ResponseService; rateLimiter: RateLimiter; rateLimitFactor: number },
) {
  const fail = (request: FastifyRequest, reply: FastifyReply, err: unknown) => {
    if (!(err instanceof AppError)) throw err;
    if (err instanceof RateLimitedError) void reply.header('retry-after', String(err.retryAfterSeconds));
    if (wantsJson(request)) {
      return reply.status(err.status).send(errorBody(err));
    }
    void reply.headers(PAGE_HEADERS).status(err.status);
    if (err instanceof GoneError) return reply.send(renderGonePage({ reason: err.reason, title: err.title }));
    if (err instanceof RequesterError)
      return reply.send(renderGonePage({ reason: 'requester', title: err.title }));
    if (err instanceof NotFoundError) return reply.send(renderGonePage({ reason: 'unknown' }));
    const message =
      err instanceof ValidationError
        ? Object.values(err.errors).flat().join('; ') || err.message
        : err.message;
    const token = (request as TokenRequest).params.token;
    return reply.send(
      renderErrorPage({ status: err.status, message, backUrl: `/r/${encodeURIComponent(token)}` }),
    );
  };

  // A push notification's service worker runs on its app's origin and posts the answer as a form (no preflight):
  // it may read the JSON outcome. The token is the credential and no cookie is involved, so any origin may.
  app.addHook('onSend', async (request, reply) => {
    if (request.method === 'POST' && wantsJson(request))
      void reply.header('access-control-allow-origin', '*');
  });

  // Before the body is parsed: a flood of random tokens from one address stops at the per-IP limit.
  app.addHook('onRequest', async (request: TokenRequest, reply) => {
    try {
      // Every route of the link (its page, its answer, an attachment) counts what the page declares.
      const subjects = { ip: request.ip, token: hashResponseToken(request.params.token) };
      await enforceRateLimits(
        deps.rateLimiter,
        reply,
        publicRouteRules(contract.responses.page, subjects, deps.rateLimitFactor),
      );
    } catch (err) {
      return fail(request, reply, err);
    }
  });

  app.get('/r/:token', async (request: TokenRequest, reply) => {
    try {
      const g = await deps.responses.view(request.params.token);
      const gate = g.action.gate!;
      const suggested = (request.query as { decision?: string }).decision;
      const path = `/r/${encodeURIComponent(request.params.token)}`;
      return reply.headers(PAGE_HEADERS).send(
        renderResponsePage({
          title: g.action.name,
          message: gate.message,
          recipientName: g.recipient.display_name,
          formAction: path,
          buttons: { confirm: gate.buttons[0], decline: gate.buttons[1] },
          snooze: { allowed: g.snoozesLeft > 0, remaining: g.snoozesLeft, choices: SNOOZE_CHOICES },
          attachments: g.attachments.map((a) => ({
            name: a.name,
            url: a.url ?? `${path}/attachments/${a.id}`,
            size: a.size ?? 0,
            contentType: a.content_type,
          })),
          expiresAt: new Date(gate.expires_at ?? Date.now()),
          ...(g.progress ? { progress: g.progress } : {}),
          ...(g.quorum ? { quorum: g.quorum } : {}),
          commentPolicy: gate.comment ?? 'optional',
          fields: gate.fields ?? [],
          ...(gate.grant
            ? {
                grant: {
                  key: gate.grant.key,
                  choices: grantChoices(gate.grant.max_ttl, gate.grant.max_ttl_ms),
                },
              }
            : {}),
          ...(suggested === 'confirm' || suggested === 'decline' ? { suggestedDecision: suggested } : {}),
        }),
      );
    } catch (err) {
      return fail(request, reply, err);
    }
  });

  app.post('/r/:token', async (request: TokenRequest, reply) => {
    try {
      const answer = parseAnswer(request.body);
      if (!answer.ok) throw new ValidationError(answer.errors);
      const { decision, comment, snoozeFor, via, values, grantTtl } = answer;
      const outcome = await deps.responses.respond(
        request.params.token,
        { decision, comment, snoozeFor, values, grantTtl },
        { channel: via },
      );
      if (wantsJson(request)) {
        const { title: _title, ...body } = outcome;
        return reply.send(body);
      }
      return reply.headers(PAGE_HEADERS).send(
        renderResultPage({
          title: outcome.title,
          outcome: outcome.recipient_status,
          ...(outcome.snoozed_until ? { snoozedUntil: new Date(outcome.snoozed_until) } : {}),
          ...(outcome.approvals_needed !== null
            ? { detail: approvalsNeededText(outcome.approvals_needed) }
            : outcome.decision === 'confirm' && outcome.action_status !== 'executed'
              ? {
                  detail:
                    'Your approval is recorded; the request goes ahead when every recipient has approved.',
                }
              : {}),
        }),
      );
    } catch (err) {
      return fail(request, reply, err);
    }
  });

  app.get('/r/:token/attachments/:id', async (request: TokenRequest, reply) => {
    try {
      // Attachment ids are UUIDs; anything else is simply not there (and must not reach the database as text).
      if (!Uuid.safeParse(request.params.id).success) throw new NotFoundError('attachment');
      const file = await deps.responses.attachment(request.params.token, request.params.id ?? '');
      // A hosted attachment redirects only to https: never an open redirect to another scheme.
      if (file.url) {
        if (!isHttps(file.url)) throw new NotFoundError('attachment');
        return reply.redirect(file.url, 302);
      }
      if (!file.content) throw new NotFoundError('attachment');
      const safeName = file.name.replace(/["\\\r\n]/g, '_');
      return reply
        .headers({
          'content-type': file.content_type,
          'content-disposition': `attachment; filename="${safeName}"; filename*=UTF-8''${encodeURIComponent(file.name)}`,
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'; sandbox",
        })
        .send(file.content);
    } catch (err) {
      return fail(request, reply, err);
    }
  });
}

function isHttps(url: string): boolean {
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
}
