import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, GoneError, NotFoundError, RateLimitedError, ValidationError } from '../app/errors.js';
import type { RateLimiter } from '../app/rate-limiter.js';
import type { ResponseService } from '../app/approvals/respond.js';
import { rule } from '../domain/rate-limit/policy.js';
import { hashResponseToken } from '../domain/approval/response-token.js';
import { enforceRateLimits } from './auth.js';
import {
  PAGE_HEADERS,
  parseResponseForm,
  renderErrorPage,
  renderGonePage,
  renderResponsePage,
  renderResultPage,
} from './pages/render.js';

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
 * The login-free response links `/r/<token>` (spec 5.3). GET renders the page and never changes state (mail
 * scanners open links); POST records the answer, from the page's form or as JSON. 10 requests a minute per link.
 */
export function registerResponseRoutes(
  app: FastifyInstance,
  deps: { responses: ResponseService; rateLimiter: RateLimiter; rateLimitFactor: number },
) {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  const limit = async (request: TokenRequest, reply: FastifyReply) => {
    await enforceRateLimits(deps.rateLimiter, reply, [
      rule('reminderResponse', hashResponseToken(request.params.token), deps.rateLimitFactor),
    ]);
  };

  const fail = (request: FastifyRequest, reply: FastifyReply, err: unknown) => {
    if (!(err instanceof AppError)) throw err;
    if (err instanceof RateLimitedError) void reply.header('retry-after', String(err.retryAfterSeconds));
    if (wantsJson(request)) {
      return reply
        .status(err.status)
        .send(
          err instanceof ValidationError
            ? { message: err.message, errors: err.errors }
            : { message: err.message },
        );
    }
    void reply.headers(PAGE_HEADERS).status(err.status);
    if (err instanceof GoneError) return reply.send(renderGonePage({ reason: err.reason, title: err.title }));
    if (err instanceof NotFoundError) return reply.send(renderGonePage({ reason: 'unknown' }));
    const message =
      err instanceof ValidationError
        ? Object.values(err.errors).flat().join('; ') || err.message
        : err.message;
    return reply.send(renderErrorPage({ status: err.status, message, backUrl: request.url.split('?')[0]! }));
  };

  app.get('/r/:token', async (request: TokenRequest, reply) => {
    try {
      await limit(request, reply);
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
          ...(suggested === 'confirm' || suggested === 'decline' ? { suggestedDecision: suggested } : {}),
        }),
      );
    } catch (err) {
      return fail(request, reply, err);
    }
  });

  app.post('/r/:token', async (request: TokenRequest, reply) => {
    try {
      await limit(request, reply);
      const parsed = parseResponseForm(request.body);
      if (!parsed.ok) throw new ValidationError(parsed.errors);
      const outcome = await deps.responses.respond(request.params.token, {
        decision: parsed.decision,
        comment: parsed.comment,
        snoozeFor: parsed.snoozeFor,
      });
      if (wantsJson(request)) {
        const { title: _title, ...body } = outcome;
        return reply.send(body);
      }
      return reply.headers(PAGE_HEADERS).send(
        renderResultPage({
          title: outcome.title,
          outcome: outcome.recipient_status === 'pending' ? 'confirmed' : outcome.recipient_status,
          ...(outcome.snoozed_until ? { snoozedUntil: new Date(outcome.snoozed_until) } : {}),
          ...(outcome.decision === 'confirm' && outcome.action_status !== 'executed'
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
      await limit(request, reply);
      const file = await deps.responses.attachment(request.params.token, request.params.id ?? '');
      if (file.url || !file.content) return reply.redirect(file.url ?? '/', 302);
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
