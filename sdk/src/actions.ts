import type {
  Action,
  ActionBatchResult,
  ActionCreateBody,
  ActionSummary,
  PauseBody,
  Quota,
  ReplayBody,
  RescheduleBody,
  RunNowBody,
  ResumeBody,
  SchedulePreview,
  SchedulePreviewBody,
} from '@sched/contract';
import { callArgs, type RawClient } from './raw.js';
import { collect, paginate, paginatePages } from './pagination.js';
import type { CallOptions } from './transport.js';
import type {
  ActionListQuery,
  ActionStatus,
  AttemptsQuery,
  CancelByKeyResult,
  DeliveryAttempt,
  DeliveryAttemptsPage,
  CancelledAction,
  Page,
  RetriedAction,
} from './types.js';
import { unwrap } from './unwrap.js';
import { poll, SchedWaitTimeoutError, type WaitOptions } from './wait.js';

/**
 * The action a skipped create points at: `id`, `name` and `status` for certain (this server sends the whole
 * action; call `actions.get(id)` for typed access beyond the three).
 */
export interface ExistingAction {
  id: string;
  name: string;
  status: ActionStatus;
  [field: string]: unknown;
}

/**
 * What `actions.create` answers.
 * - `{ skipped: false, action }`: 201, a new action was scheduled.
 * - `{ skipped: true, action, reason, existingStatus }`: 200, nothing was created and `action` is the live action
 *   that made the request redundant: `reason` is `idempotency_key_exists` (the idempotency key belongs to a live
 *   action) or `existing_action_found` (`coordination.on_create: skip_if_exists` and a live action shares a dedup
 *   key).
 * Either way the request succeeded; errors (422, 429, quota...) throw `SchedApiError`.
 */
export type CreateActionResult =
  | { skipped: false; action: Action }
  | { skipped: true; action: ExistingAction; reason: string; existingStatus: ActionStatus | undefined };

/**
 * What `actions.createMany` answers: `data` in the order given, each a new action or, where the item was skipped by
 * its idempotency key or dedup rule, the existing action with `meta: { skipped: true, reason, existing_status }`;
 * `meta` counts both. An invalid item throws `SchedApiError` (422, paths `actions.N.field`) and nothing is created.
 */
export type CreateManyResult = ActionBatchResult;

/** Where an action stops moving by itself: `executed`, `failed`, `expired`, `cancelled`. */
export const FINAL_ACTION_STATES: readonly ActionStatus[] = Object.freeze([
  'executed',
  'failed',
  'expired',
  'cancelled',
]);

/**
 * Options of `actions.wait`. Without `until`, the server holds each request until the moment comes
 * (`GET /v1/actions/{id}/wait`): `for: 'terminal'` (default) the action's end, `for: 'decision'` an approval's
 * decision. With `until`, `get` is polled every `intervalMs` until the status is one of them.
 */
export interface ActionWaitOptions extends WaitOptions {
  until?: ActionStatus | readonly ActionStatus[];
  for?: 'decision' | 'terminal';
}

/** One held request's answer (`GET /v1/actions/{id}/wait`): the action, and whether the timeout came first. */
export interface HeldWait {
  action: Action;
  timedOut: boolean;
}

export interface ActionsApi {
  /**
   * Schedules an action (`POST /v1/actions`). See `CreateActionResult` for the 201 and 200 (skipped) answers. With
   * an `idempotency_key` the call is retried on network errors and 429/502/503/504, the server answering a repeat
   * with the first action.
   */
  create(body: ActionCreateBody, options?: CallOptions): Promise<CreateActionResult>;
  /**
   * Schedules up to 1,000 actions in one transaction (`POST /v1/actions/batch`): all or nothing. See
   * `CreateManyResult`; an invalid item throws `SchedApiError` 422 with paths `actions.N.field`.
   */
  createMany(bodies: readonly ActionCreateBody[], options?: CallOptions): Promise<CreateManyResult>;
  /** One page of summaries with `meta` (`GET /v1/actions`), newest first. */
  list(query?: ActionListQuery, options?: CallOptions): Promise<Page<ActionSummary>>;
  /** Every page from `query.page` (default 1), one request each; see `paginatePages`. */
  pages(query?: ActionListQuery, options?: CallOptions): AsyncGenerator<Page<ActionSummary>, void, undefined>;
  /** Every matching summary across all pages, fetched lazily: `for await (const a of sched.actions.iterate())`. */
  iterate(query?: ActionListQuery, options?: CallOptions): AsyncGenerator<ActionSummary, void, undefined>;
  /** Every matching summary in one array (all pages fetched). */
  listAll(query?: ActionListQuery, options?: CallOptions): Promise<ActionSummary[]>;
  /**
   * The full action with its newest 20 `delivery_attempts` (`delivery_attempts_more` says whether older ones exist).
   * 404 for an unknown id or another account's action.
   */
  get(id: string, options?: CallOptions): Promise<Action>;
  /**
   * One page of an action's attempts, newest first (`GET /v1/actions/{id}/attempts`): `limit` (1-100, default 50),
   * and `before` set to an earlier page's `meta.next_before` for the next, older page.
   */
  attempts(id: string, query?: AttemptsQuery, options?: CallOptions): Promise<DeliveryAttemptsPage>;
  /** Every attempt the log holds, newest first, fetched a page at a time: `for await (const a of ...)`. */
  iterateAttempts(id: string, options?: CallOptions): AsyncGenerator<DeliveryAttempt, void, undefined>;
  /**
   * Polls `get` until the action's status is one of `until` (default: `executed`, `failed`, `expired` or
   * `cancelled`), then answers it. Rejects with `SchedWaitTimeoutError` after `timeoutMs` (default 5 minutes).
   */
  wait(id: string, options?: ActionWaitOptions): Promise<Action>;
  /**
   * One held request (`GET /v1/actions/{id}/wait`): answers when the gate is decided (`for: 'decision'`, default) or
   * the action ended (`for: 'terminal'`), or after `timeout` seconds (1-60, default 30) with `timedOut: true`.
   */
  hold(
    id: string,
    query?: { for?: 'decision' | 'terminal'; timeout?: number },
    options?: CallOptions,
  ): Promise<HeldWait>;
  /** Cancels a `scheduled`, `resolved` or `awaiting_response` action; any other status is a 409. */
  cancel(id: string, options?: CallOptions): Promise<CancelledAction>;
  /** Cancels the live action holding the idempotency key (`DELETE /v1/actions`). */
  cancelByIdempotencyKey(idempotencyKey: string, options?: CallOptions): Promise<CancelledAction>;
  /** Cancels every live action sharing a dedup key; 404 when none could be cancelled. */
  cancelByCoordinationKey(coordinationKey: string, options?: CallOptions): Promise<CancelByKeyResult>;
  /** Starts a new delivery cycle of a `failed` action now; 422 for any other status. */
  retry(id: string, options?: CallOptions): Promise<RetriedAction>;
  /**
   * Pauses a `scheduled`, `resolved` or `awaiting_response` action (a series as a whole): nothing is sent and an
   * approval's clocks stop. Give one of `until`, `duration` (it resumes by itself then) or `indefinite: true`.
   * 409 when it cannot be paused; answers the action, `paused`.
   */
  pause(id: string, body: PauseBody, options?: CallOptions): Promise<Action>;
  /**
   * Resumes a paused action; `missed: 'run_once'` (default) runs what passed while paused once, `'skip'` drops it
   * (a one-time action whose time passed ends `expired`). 409 when it is not paused.
   */
  resume(id: string, body?: ResumeBody, options?: CallOptions): Promise<Action>;
  /**
   * A NEW action from a final action's definition (`POST /v1/actions/{id}/replay`), due now unless `schedule` or
   * `scheduled_for` says otherwise; `request.headers` / `request.body` replace the original's. Its `replay_of` is
   * the original. 409 for an action that is not final.
   */
  replay(id: string, overrides?: ReplayBody, options?: CallOptions): Promise<Action>;
  /**
   * Moves a pending action (`scheduled`, `resolved` or `paused`) to a new time by the create's rules: exactly one of
   * `schedule` and `scheduled_for`; its delivery window applies. 409 for any other status; answers the action.
   */
  reschedule(id: string, body: RescheduleBody, options?: CallOptions): Promise<Action>;
  /**
   * Fires a pending webhook action now (its delivery window honoured unless `ignore_window: true`); 409 for any other
   * status or an approval. Answers the action.
   */
  run(id: string, body?: RunNowBody, options?: CallOptions): Promise<Action>;
}

/** Held requests end a few seconds before the client's own deadline would cut them. */
function holdSeconds(requestTimeoutMs: number, leftMs: number): number {
  const budget = requestTimeoutMs > 0 ? Math.floor(requestTimeoutMs / 1000) - 5 : 60;
  return Math.max(1, Math.min(60, budget, Math.ceil(leftMs / 1000)));
}

/** `requestTimeoutMs`: the client's deadline per request (`timeoutMs`, 30 s by default). */
export function actionsApi(raw: RawClient, requestTimeoutMs = 30_000): ActionsApi {
  const list = async (query: ActionListQuery = {}, o?: CallOptions): Promise<Page<ActionSummary>> =>
    unwrap(await raw.actions.list({ query, ...callArgs(o) }), 200);
  const get = async (id: string, o?: CallOptions): Promise<Action> =>
    unwrap(await raw.actions.get({ params: { id }, ...callArgs(o) }), 200).data;
  const byPage = (o?: CallOptions) => (q: ActionListQuery) => list(q, o);
  const attempts = async (id: string, query: AttemptsQuery = {}, o?: CallOptions) =>
    unwrap(await raw.actions.listAttempts({ params: { id }, query, ...callArgs(o) }), 200);

  const api: ActionsApi = {
    async create(body, o) {
      const result = await raw.actions.create({ body, ...callArgs(o) });
      if (result.status === 200) {
        const skipped = result.body;
        return {
          skipped: true,
          action: skipped.data as ExistingAction,
          reason: skipped.meta.reason,
          existingStatus: skipped.meta.existing_status ?? skipped.data.status,
        };
      }
      return { skipped: false, action: unwrap(result, 201).data };
    },
    createMany: async (bodies, o) =>
      unwrap(await raw.actions.createMany({ body: { actions: [...bodies] }, ...callArgs(o) }), 201),
    list,
    pages: (query = {}, o) => paginatePages(byPage(o), query),
    iterate: (query = {}, o) => paginate(byPage(o), query),
    listAll: (query = {}, o) => collect(paginate(byPage(o), query)),
    get,
    attempts,
    async *iterateAttempts(id, o) {
      let before: string | undefined;
      for (;;) {
        const page = await attempts(id, { limit: 100, ...(before && { before }) }, o);
        yield* page.data;
        if (!page.meta.next_before) return;
        before = page.meta.next_before;
      }
    },
    hold: async (id, query = {}, o) => {
      const answer = unwrap(await raw.actions.wait({ params: { id }, query, ...callArgs(o) }), 200);
      return { action: answer.data, timedOut: answer.meta.timed_out };
    },
    wait: async (id, options = {}) => {
      if (options.until === undefined) {
        const timeoutMs = options.timeoutMs ?? 300_000;
        const giveUpAt = timeoutMs > 0 ? Date.now() + timeoutMs : Number.POSITIVE_INFINITY;
        for (;;) {
          const left = giveUpAt - Date.now();
          const timeout = holdSeconds(requestTimeoutMs, Number.isFinite(left) ? left : 60_000);
          const held = await api.hold(id, { for: options.for ?? 'terminal', timeout }, options);
          if (!held.timedOut) return held.action;
          if (giveUpAt - Date.now() <= 0)
            throw new SchedWaitTimeoutError(
              `action ${id} did not reach the awaited state within ${timeoutMs} ms`,
              held.action,
            );
        }
      }
      const until = options.until;
      const wanted = new Set<string>(typeof until === 'string' ? [until] : until);
      return poll(
        () => get(id, options),
        (a) => wanted.has(a.status),
        options,
        `action ${id}`,
      );
    },
    cancel: async (id, o) => unwrap(await raw.actions.cancel({ params: { id }, ...callArgs(o) }), 200).data,
    cancelByIdempotencyKey: async (idempotencyKey, o) =>
      unwrap(
        await raw.actions.cancelByIdempotencyKey({
          body: { idempotency_key: idempotencyKey },
          ...callArgs(o),
        }),
        200,
      ).data,
    cancelByCoordinationKey: async (coordinationKey, o) =>
      unwrap(
        await raw.actions.cancelByCoordinationKey({
          body: { coordination_key: coordinationKey },
          ...callArgs(o),
        }),
        200,
      ),
    retry: async (id, o) => unwrap(await raw.actions.retry({ params: { id }, ...callArgs(o) }), 200).data,
    pause: async (id, body, o) =>
      unwrap(await raw.actions.pause({ params: { id }, body, ...callArgs(o) }), 200).data,
    resume: async (id, body = {}, o) =>
      unwrap(await raw.actions.resume({ params: { id }, body, ...callArgs(o) }), 200).data,
    replay: async (id, overrides = {}, o) =>
      unwrap(await raw.actions.replay({ params: { id }, body: overrides, ...callArgs(o) }), 201).data,
    reschedule: async (id, body, o) =>
      unwrap(await raw.actions.reschedule({ params: { id }, body, ...callArgs(o) }), 200).data,
    run: async (id, body = {}, o) =>
      unwrap(await raw.actions.run({ params: { id }, body, ...callArgs(o) }), 200).data,
  };
  return api;
}

export interface SchedulesApi {
  /** The next `count` (default 10) runs of the schedule fields of an action, with DST effects and warnings. */
  preview(body: SchedulePreviewBody, options?: CallOptions): Promise<SchedulePreview>;
}

/** When a schedule runs, without creating anything (`POST /v1/schedules/preview`). */
export function schedulesApi(raw: RawClient): SchedulesApi {
  return {
    preview: async (body, o) => unwrap(await raw.schedules.preview({ body, ...callArgs(o) }), 200).data,
  };
}

export interface QuotaApi {
  /** This month's usage against the plan (`GET /v1/quota`); `limit: null` means unlimited. */
  get(options?: CallOptions): Promise<Quota>;
}

export function quotaApi(raw: RawClient): QuotaApi {
  return { get: async (o) => unwrap(await raw.quota.get(callArgs(o)), 200).data };
}

/** Every dedup key used in the account (`GET /v1/coordination-keys`). */
export async function coordinationKeys(raw: RawClient, o?: CallOptions): Promise<string[]> {
  return unwrap(await raw.actions.coordinationKeys(callArgs(o)), 200).keys;
}
