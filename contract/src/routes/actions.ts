import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  Action,
  ActionBatchBody,
  ActionBatchResult,
  ActionCreateBody,
  ActionListQuery,
  ActionSummary,
  ActionWaitQuery,
  AttemptsQuery,
  CancelByKeyResult,
  DeliveryAttemptsPage,
  CancelledAction,
  ActionStats,
  ActionStatus,
  PauseBody,
  ReplayBody,
  RescheduleBody,
  RunNowBody,
  ResumeBody,
  Quota,
  RetriedAction,
  SkippedMeta,
} from '../schemas/action.js';
import { authErrors, ErrorBody, paginated, ReadConsistencyQuery, single, Uuid } from '../schemas/common.js';

const c = initContract();
const idParams = z.object({ id: Uuid });
/** Making an action, or sending one again, counts against `createAction` (a batch once here, as one request). */
const creates = { rateLimits: ['createAction'] } as const;

export const actionsContract = c.router({
  create: {
    method: 'POST',
    path: '/v1/actions',
    body: ActionCreateBody,
    responses: {
      201: single(Action),
      200: z.object({
        data: z.looseObject({ id: Uuid, name: z.string(), status: ActionStatus }),
        meta: SkippedMeta,
      }),
      413: ErrorBody,
      ...authErrors,
    },
    metadata: creates,
    summary: 'Schedule an action',
    description:
      'Creates a webhook (or approval) action. Answers 201 with the action; 200 with `meta.skipped` when `coordination.on_create` is ' +
      '`skip_if_exists` and a live action shares a dedup key, or when the idempotency key belongs to a live action (`reason: idempotency_key_exists`). ' +
      '403 when the monthly action quota of the plan is spent (the message names the limit and the plan; `Retry-After` until the 1st).',
  },
  createMany: {
    method: 'POST',
    path: '/v1/actions/batch',
    body: ActionBatchBody,
    responses: {
      201: ActionBatchResult,
      413: ErrorBody,
      ...authErrors,
    },
    metadata: creates,
    summary: 'Schedule up to 1,000 actions at once',
    description:
      'Each item of `actions` is a `POST /v1/actions` body, validated the same way; any invalid item answers 422 with paths ' +
      '`actions.N.field` and nothing is created. Otherwise all items are written in ONE transaction and the answer is 201 with ' +
      '`data` holding the actions in the order given and `meta.created` / `meta.skipped` counting them. An item skipped by its ' +
      'idempotency key or dedup rule is, in its place, the existing action with `meta: { skipped: true, reason, existing_status }` ' +
      '(what the single create answers with 200). The monthly quota, destination thresholds and the create rate limit count each ' +
      'item: a batch that does not fit is refused whole (403 / 422 / 429).',
  },
  list: {
    method: 'GET',
    path: '/v1/actions',
    query: ActionListQuery,
    responses: { 200: paginated(ActionSummary), ...authErrors },
    summary: 'List actions',
    description:
      'Newest first, paginated (`page`, `per_page` up to 100). Filters combine: `status`, `mode`, `search` (name or URL), `coordination_key`, `recurring`.',
  },
  get: {
    method: 'GET',
    path: '/v1/actions/:id',
    pathParams: idParams,
    query: ReadConsistencyQuery,
    responses: { 200: single(Action), 404: ErrorBody, ...authErrors },
    summary: 'Get an action with its delivery attempts',
    description:
      'The action with its newest 20 delivery attempts (oldest of them first; `delivery_attempts_more` says whether older ones ' +
      'exist: `GET /v1/actions/{id}/attempts`) and, for an approval, its recipients and timeline.',
  },
  wait: {
    method: 'GET',
    path: '/v1/actions/:id/wait',
    pathParams: idParams,
    query: ActionWaitQuery,
    responses: {
      200: z.object({
        data: Action,
        meta: z.object({
          timed_out: z
            .boolean()
            .meta({ description: 'True when the timeout (or a shutdown) came before what was waited for.' }),
        }),
      }),
      404: ErrorBody,
      ...authErrors,
    },
    summary: "Wait for an approval's decision or an action's end",
    description:
      'Holds the request until the gate is decided (`for=decision`, the default; a webhook action: until it ended) or the ' +
      'action ended (`for=terminal`), at most `timeout` seconds (1-60, default 30), then answers the action as it is, with ' +
      '`meta.timed_out`. Held requests cost no polling: the change is announced by PostgreSQL, whichever process records it. ' +
      'A server shutting down answers the held requests at once.',
  },
  listAttempts: {
    method: 'GET',
    path: '/v1/actions/:id/attempts',
    pathParams: idParams,
    query: AttemptsQuery,
    responses: { 200: DeliveryAttemptsPage, 404: ErrorBody, ...authErrors },
    summary: "Page through an action's delivery attempts",
    description:
      "Every attempt the log still holds (the retention purge removes those past the plan's history), newest first, " +
      '`limit` (1-100, default 50) at a time; pass `meta.next_before` as `before` for the next page (keyset: stable while ' +
      'a series adds attempts). The action view embeds only the newest 20.',
  },
  cancel: {
    method: 'DELETE',
    path: '/v1/actions/:id',
    pathParams: idParams,
    body: c.noBody(),
    responses: { 200: single(CancelledAction), 404: ErrorBody, 409: ErrorBody, ...authErrors },
    summary: 'Cancel an action',
    description:
      'Cancellable: `scheduled`, `resolved`, `awaiting_response`. Any other status answers 409 with the current status in the message.',
  },
  cancelByIdempotencyKey: {
    method: 'DELETE',
    path: '/v1/actions',
    body: z.object({ idempotency_key: z.string().min(1).max(255) }),
    responses: { 200: single(CancelledAction), 404: ErrorBody, 409: ErrorBody, ...authErrors },
    summary: 'Cancel the live action holding an idempotency key',
    description:
      'The key is the `idempotency_key` given at creation. 404 when no live action holds it; 409 when it is no longer cancellable.',
  },
  cancelByCoordinationKey: {
    method: 'DELETE',
    path: '/v1/actions/by-coordination-key',
    body: z.object({ coordination_key: z.string().min(1).max(255) }),
    responses: { 200: CancelByKeyResult, 404: ErrorBody, ...authErrors },
    summary: 'Cancel every live action sharing a dedup key',
    description:
      'Cancels every cancellable action that shares the dedup key and answers how many were cancelled and skipped; 404 when none could be cancelled.',
  },
  retry: {
    method: 'POST',
    path: '/v1/actions/:id/retry',
    pathParams: idParams,
    body: c.noBody(),
    responses: { 200: single(RetriedAction), 404: ErrorBody, 409: ErrorBody, ...authErrors },
    metadata: creates,
    summary: 'Retry a failed action',
    description:
      'Only `failed` actions with an HTTP request; otherwise 422. Resets attempt_count and starts a new execution cycle now. ' +
      '409 when the action has an idempotency key that a live action has taken since it failed.',
  },
  replay: {
    method: 'POST',
    path: '/v1/actions/:id/replay',
    pathParams: idParams,
    body: ReplayBody.optional(),
    responses: { 201: single(Action), 404: ErrorBody, 409: ErrorBody, ...authErrors },
    summary: 'Replay a finished action as a new one',
    description:
      'On an action in a final state (`executed`, `failed`, `expired`, `cancelled`): creates a NEW action from its definition ' +
      'through the same checks as `POST /v1/actions` (validation, quota, destination thresholds, SSRF), due at once unless ' +
      '`schedule` / `scheduled_for` says otherwise. Its `replay_of` is the original, which lists it in `replays`; it is signed ' +
      'with its own `webhook-id`. 409 for an action that is not final. The idempotency key is not copied (docs/operations.md).',
    metadata: { ...creates, example: { request: { request: { body: { order: 42, fixed: true } } } } },
  },
  reschedule: {
    method: 'POST',
    path: '/v1/actions/:id/reschedule',
    pathParams: idParams,
    body: RescheduleBody,
    responses: { 200: single(Action), 404: ErrorBody, 409: ErrorBody, ...authErrors },
    summary: 'Move a pending action to a new time',
    description:
      'A pending action (`scheduled`, `resolved`, or `paused`, which stays paused) gets a new due time by the rules of `POST /v1/actions` ' +
      "(validation, the plan's horizon, its delivery window). A recurring action's series is anchored on the new time. 409 for any other status. Audited.",
  },
  run: {
    method: 'POST',
    path: '/v1/actions/:id/run',
    pathParams: idParams,
    body: RunNowBody.optional(),
    responses: { 200: single(Action), 404: ErrorBody, 409: ErrorBody, ...authErrors },
    summary: 'Fire a pending webhook action now',
    description:
      'A pending webhook action (`scheduled`, `resolved` or `paused`) is due at once; when its delivery window is closed it is due at the ' +
      'next opening unless `ignore_window: true`. A recurring action runs its current occurrence now and goes on with its series. ' +
      '409 for any other status or an approval. Audited.',
  },
  pause: {
    method: 'POST',
    path: '/v1/actions/:id/pause',
    pathParams: idParams,
    body: PauseBody,
    responses: { 200: single(Action), 404: ErrorBody, 409: ErrorBody, ...authErrors },
    summary: 'Pause an action',
    description:
      'A `scheduled`, `resolved` or `awaiting_response` action (either mode; a recurring series as a whole) becomes `paused`: nothing is sent, ' +
      "and an approval's timeout and escalation clocks stop. Give exactly one of `until`, `duration` (it resumes by itself then) or `indefinite: true`. " +
      '409 when it cannot be paused (already paused, being delivered right now, final, or a chain step). Callback `action.paused`.',
  },
  resume: {
    method: 'POST',
    path: '/v1/actions/:id/resume',
    pathParams: idParams,
    // No body at all is `{}`: run_once.
    body: ResumeBody.optional(),
    responses: { 200: single(Action), 404: ErrorBody, 409: ErrorBody, ...authErrors },
    summary: 'Resume a paused action',
    description:
      'Back on the schedule (or, for an approval whose request went out, waiting for answers with the clocks moved on by the time paused). ' +
      '`missed` says what happens to what passed while paused (docs/operations.md). 409 when the action is not paused. Callback `action.resumed`.',
  },
  stats: {
    method: 'GET',
    path: '/v1/stats',
    query: ReadConsistencyQuery,
    responses: { 200: single(ActionStats), ...authErrors },
    summary: 'Counts by state and the last 24 hours of deliveries',
    description:
      "What the console's overview shows: actions per state, approvals waiting, and the delivery attempts of the last 24 hours " +
      '(success rate, lateness p50/p99) in all and per hour.',
  },
  coordinationKeys: {
    method: 'GET',
    path: '/v1/coordination-keys',
    responses: { 200: z.object({ keys: z.array(z.string()) }), ...authErrors },
    summary: 'Every dedup key used in the account',
    description: "The distinct `coordination.dedup_key` values of the account's actions, sorted.",
  },
});

export const quotaContract = c.router({
  get: {
    method: 'GET',
    path: '/v1/quota',
    responses: { 200: single(Quota), ...authErrors },
    summary: 'Usage of this month against the plan',
    description: 'Usage resets on the 1st of each month at 00:00 UTC. Cancelled actions still count.',
  },
});
