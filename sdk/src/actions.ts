import type {
  Action,
  ActionCreateBody,
  ActionSummary,
  apiContract,
  PauseBody,
  Quota,
  ReplayBody,
  ResumeBody,
  SchedulePreview,
  SchedulePreviewBody,
} from '@sched/contract';
import type { ClientInferResponses } from '@ts-rest/core';
import type { createRawClient } from './client.js';
import { collect, paginate, paginatePages } from './pagination.js';
import { type BodyOf, unwrap } from './unwrap.js';
import type {
  ActionListQuery,
  ActionStatus,
  CancelByKeyResult,
  CancelledAction,
  Page,
  RetriedAction,
} from './types.js';

type RawClient = ReturnType<typeof createRawClient>;

/**
 * The action a skipped create points at, as the contract declares it: `id`, `name` and `status` (this server sends
 * the whole action; call `actions.get(id)` for typed access beyond the three).
 */
export type ExistingAction = BodyOf<ClientInferResponses<typeof apiContract.actions.create>, 200>['data'];

/**
 * What `actions.create` answers.
 * - `{ skipped: false, action }`: 201, a new action was scheduled.
 * - `{ skipped: true, action, reason, existingStatus }`: 200, nothing was created and `action` is the live action
 *   that made the request redundant: `reason` is `idempotency_key_exists` (the idempotency key belongs to a live
 *   action, rule 6 of spec 4.1) or `existing_action_found` (`coordination.on_create: skip_if_exists` and a live
 *   action shares a dedup key).
 * Either way the request succeeded; errors (422, 429 quota, 401...) throw `SchedApiError`.
 */
export type CreateActionResult =
  | { skipped: false; action: Action }
  | { skipped: true; action: ExistingAction; reason: string; existingStatus: ActionStatus | undefined };

export function actionsApi(raw: RawClient) {
  const list = async (query: ActionListQuery = {}): Promise<Page<ActionSummary>> =>
    unwrap(await raw.actions.list({ query }), 200);

  return {
    /** Schedules an action (`POST /v1/actions`). See `CreateActionResult` for the 201 and 200 (skipped) answers. */
    async create(body: ActionCreateBody): Promise<CreateActionResult> {
      const result = await raw.actions.create({ body });
      if (result.status === 200) {
        const skipped = result.body;
        return {
          skipped: true,
          action: skipped.data,
          reason: skipped.meta.reason,
          existingStatus: skipped.meta.existing_status ?? skipped.data.status,
        };
      }
      return { skipped: false, action: unwrap(result, 201).data };
    },
    /** One page of summaries with `meta` (`GET /v1/actions`), newest first. */
    list,
    /** Every page from `query.page` (default 1), one request each; see `paginatePages`. */
    pages: (query: ActionListQuery = {}): AsyncGenerator<Page<ActionSummary>, void, undefined> =>
      paginatePages(list, query),
    /** Every matching summary across all pages, fetched lazily: `for await (const a of sched.actions.iterate())`. */
    iterate: (query: ActionListQuery = {}): AsyncGenerator<ActionSummary, void, undefined> =>
      paginate(list, query),
    /** Every matching summary in one array (all pages fetched). */
    listAll: (query: ActionListQuery = {}): Promise<ActionSummary[]> => collect(paginate(list, query)),
    /** The full action with its `delivery_attempts`. 404 for an unknown id or another account's action. */
    get: async (id: string): Promise<Action> => unwrap(await raw.actions.get({ params: { id } }), 200).data,
    /** Cancels a `scheduled`, `resolved` or `awaiting_response` action; any other status is a 409. */
    cancel: async (id: string): Promise<CancelledAction> =>
      unwrap(await raw.actions.cancel({ params: { id } }), 200).data,
    /** Cancels the live action holding the idempotency key (`DELETE /v1/actions`). */
    cancelByIdempotencyKey: async (idempotencyKey: string): Promise<CancelledAction> =>
      unwrap(await raw.actions.cancelByIdempotencyKey({ body: { idempotency_key: idempotencyKey } }), 200)
        .data,
    /** Cancels every live action sharing a dedup key; 404 when none could be cancelled. */
    cancelByCoordinationKey: async (coordinationKey: string): Promise<CancelByKeyResult> =>
      unwrap(await raw.actions.cancelByCoordinationKey({ body: { coordination_key: coordinationKey } }), 200),
    /** Starts a new delivery cycle of a `failed` action now; 422 for any other status. */
    retry: async (id: string): Promise<RetriedAction> =>
      unwrap(await raw.actions.retry({ params: { id } }), 200).data,
    /**
     * A NEW action from a final action's definition (`POST /v1/actions/{id}/replay`), due now unless `schedule` or
     * `scheduled_for` says otherwise; `request.headers` / `request.body` replace the original's. Its `replay_of` is
     * the original. 409 for an action that is not final.
     */
    replay: async (id: string, overrides: ReplayBody = {}): Promise<Action> =>
      unwrap(await raw.actions.replay({ params: { id }, body: overrides }), 201).data,
    /**
     * Pauses a `scheduled`, `resolved` or `awaiting_response` action (a series as a whole): nothing is sent and an
     * approval's clocks stop. Give one of `until`, `duration` (it resumes by itself then) or `indefinite: true`.
     * 409 when it cannot be paused; answers the action, `paused`.
     */
    pause: async (id: string, body: PauseBody): Promise<Action> =>
      unwrap(await raw.actions.pause({ params: { id }, body }), 200).data,
    /**
     * Resumes a paused action; `missed: 'run_once'` (default) runs what passed while paused once, `'skip'` drops it
     * (a one-time action whose time passed ends `expired`). 409 when it is not paused.
     */
    resume: async (id: string, body: ResumeBody = {}): Promise<Action> =>
      unwrap(await raw.actions.resume({ params: { id }, body }), 200).data,
  };
}

/** When a schedule runs, without creating anything (`POST /v1/schedules/preview`). */
export function schedulesApi(raw: RawClient) {
  return {
    /** The next `count` (default 10) runs of the schedule fields of an action, with DST effects and warnings. */
    preview: async (body: SchedulePreviewBody): Promise<SchedulePreview> =>
      unwrap(await raw.schedules.preview({ body }), 200).data,
  };
}

export function quotaApi(raw: RawClient) {
  return {
    /** This month's usage against the plan (`GET /v1/quota`); `limit: null` means unlimited. */
    get: async (): Promise<Quota> => unwrap(await raw.quota.get(), 200).data,
  };
}

/** Every dedup key used in the account (`GET /v1/coordination-keys`). */
export async function coordinationKeys(raw: RawClient): Promise<string[]> {
  return unwrap(await raw.actions.coordinationKeys(), 200).keys;
}
