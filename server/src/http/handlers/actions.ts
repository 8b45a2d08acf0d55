import { apiContract as contract } from '@sched/contract';
import { initServer } from '@ts-rest/fastify';
import type { PauseService } from '../../app/actions/pause.js';
import type { ActionReplays } from '../../app/actions/replay.js';
import type { ActionMoves } from '../../app/actions/reschedule.js';
import type { CalendarService } from '../../app/calendars/service.js';
import type { ActionChanges } from '../../app/actions/cancel-retry.js';
import type { ActionQueries } from '../../app/actions/queries.js';
import type { ActionService } from '../../app/actions/service.js';
import type { ActionWaits } from '../../app/actions/wait.js';
import type { QuotaService } from '../../app/quota.js';
import { previewSchedule } from '../../app/schedules/preview.js';
import { seesCredentials } from '../../domain/auth/api-key.js';
import type { RateLimiter } from '../../app/rate-limiter.js';
import { rule } from '../../domain/rate-limit/policy.js';
import { enforceRateLimits, principalOf } from '../auth.js';

const s = initServer();

export function actionsHandlers(
  actions: ActionService,
  actionQueries: ActionQueries,
  actionChanges: ActionChanges,
  pauses: PauseService,
  replays: ActionReplays,
  rateLimits: { limiter: RateLimiter; factor: number },
  moves: ActionMoves,
  waits: ActionWaits,
) {
  return s.router(contract.actions, {
    createMany: async ({ request, reply, body }) => {
      const p = principalOf(request);
      // The request itself was counted once by authentication: each further item counts as one more create.
      if (body.actions.length > 1)
        await enforceRateLimits(
          rateLimits.limiter,
          // ts-rest types the reply with its own copy of Fastify's generics.
          reply as unknown as Parameters<typeof enforceRateLimits>[1],
          [rule('createAction', p.accountId, rateLimits.factor * p.rateLimitFactor)],
          body.actions.length - 1,
        );
      const results = await actions.createMany(p, body.actions, {
        traceparent: validTraceparent(request.headers.traceparent),
      });
      const skipped = results.filter((r) => r.kind === 'skipped').length;
      return {
        status: 201,
        body: {
          data: results.map((r) =>
            r.kind === 'created'
              ? r.action
              : {
                  ...r.action,
                  meta: { skipped: true as const, reason: r.reason, existing_status: r.action.status },
                },
          ),
          meta: { created: results.length - skipped, skipped },
        },
      };
    },
    create: async ({ request, body }) => {
      const result = await actions.create(principalOf(request), body, {
        traceparent: validTraceparent(request.headers.traceparent),
      });
      return result.kind === 'created'
        ? { status: 201, body: { data: result.action } }
        : {
            status: 200,
            body: {
              data: result.action,
              meta: { skipped: true, reason: result.reason, existing_status: result.action.status },
            },
          };
    },
    list: async ({ request, query }) => ({
      status: 200,
      body: await actionQueries.list(principalOf(request).accountId, query),
    }),
    get: async ({ request, params, query }) => {
      const p = principalOf(request);
      return {
        status: 200,
        body: { data: await actionQueries.get(p.accountId, params.id, seesCredentials(p.scopes), query) },
      };
    },
    wait: async ({ request, reply, params, query }) => {
      const p = principalOf(request);
      const { action, timedOut, closing } = await waits.wait(p.accountId, params.id, {
        for: query.for,
        timeoutSeconds: query.timeout,
        credentials: seesCredentials(p.scopes),
      });
      // A stopping server: the client's kept-alive connection would otherwise hold the listener's close.
      if (closing) reply.header('connection', 'close');
      return { status: 200, body: { data: action, meta: { timed_out: timedOut } } };
    },
    listAttempts: async ({ request, params, query }) => ({
      status: 200,
      body: await actionQueries.attempts(principalOf(request).accountId, params.id, query),
    }),
    cancel: async ({ request, params }) => ({
      status: 200,
      body: { data: await actionChanges.cancel(principalOf(request).accountId, params.id) },
    }),
    cancelByIdempotencyKey: async ({ request, body }) => ({
      status: 200,
      body: {
        data: await actionChanges.cancelByIdempotencyKey(
          principalOf(request).accountId,
          body.idempotency_key,
        ),
      },
    }),
    cancelByCoordinationKey: async ({ request, body }) => ({
      status: 200,
      body: await actionChanges.cancelByCoordinationKey(
        principalOf(request).accountId,
        body.coordination_key,
      ),
    }),
    retry: async ({ request, params }) => ({
      status: 200,
      body: { data: await actionChanges.retry(principalOf(request).accountId, params.id) },
    }),
    replay: async ({ request, params, body }) => ({
      status: 201,
      body: { data: await replays.replay(principalOf(request), params.id, body ?? {}) },
    }),
    pause: async ({ request, params, body }) => {
      const p = principalOf(request);
      // The action as this request left it (in its transaction), not as a worker may have moved it since.
      const data = await actionQueries.viewAfter(p.accountId, params.id, seesCredentials(p.scopes), () =>
        pauses.pause(p.accountId, params.id, body),
      );
      return { status: 200, body: { data } };
    },
    reschedule: async ({ request, params, body }) => {
      const p = principalOf(request);
      const data = await actionQueries.viewAfter(p.accountId, params.id, seesCredentials(p.scopes), () =>
        moves.reschedule({ accountId: p.accountId, plan: p.plan }, params.id, body),
      );
      return { status: 200, body: { data } };
    },
    run: async ({ request, params, body }) => {
      const p = principalOf(request);
      const data = await actionQueries.viewAfter(p.accountId, params.id, seesCredentials(p.scopes), () =>
        moves.run(p.accountId, params.id, body ?? { ignore_window: false }),
      );
      return { status: 200, body: { data } };
    },
    resume: async ({ request, params, body }) => {
      const p = principalOf(request);
      // The action as this request left it (in its transaction), not as a worker may have moved it since.
      const data = await actionQueries.viewAfter(p.accountId, params.id, seesCredentials(p.scopes), () =>
        pauses.resume(p.accountId, params.id, body ?? {}),
      );
      return { status: 200, body: { data } };
    },
    stats: async ({ request, query }) => ({
      status: 200,
      body: { data: await actionQueries.stats(principalOf(request).accountId, query) },
    }),
    coordinationKeys: async ({ request }) => ({
      status: 200,
      body: { keys: await actionQueries.coordinationKeys(principalOf(request).accountId) },
    }),
  });
}

export function quotaHandlers(quota: QuotaService) {
  return s.router(contract.quota, {
    get: async ({ request }) => {
      const p = principalOf(request);
      return { status: 200, body: { data: await quota.get(p.accountId, p.plan) } };
    },
  });
}

/** A W3C trace context (version 00, non-zero ids), or null: anything else a client sends is not kept. */
export function validTraceparent(header: string | string[] | undefined): string | null {
  const value = typeof header === 'string' ? header.trim().toLowerCase() : '';
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/.exec(value);
  return m && !/^0+$/.test(m[1]!) && !/^0+$/.test(m[2]!) ? value : null;
}

export function schedulesHandlers(clock: () => Date, calendars: CalendarService) {
  return s.router(contract.schedules, {
    preview: async ({ request, body }) => {
      const p = principalOf(request);
      const book = await calendars.book(p.accountId, [body.delivery_window?.calendar]);
      return { status: 200, body: { data: previewSchedule(body, p, clock(), book) } };
    },
  });
}
