import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { Action, ReplayBody } from '../schemas/action.js';
import { BulkDryRun, BulkOperation, BulkOperationCreate, BulkOperationListQuery } from '../schemas/bulk.js';
import { authErrors, ErrorBody, paginated, single, Uuid } from '../schemas/common.js';

const c = initContract();
const idParams = z.object({ id: Uuid });

export const replayContract = c.router({
  replay: {
    method: 'POST',
    path: '/v1/actions/:id/replay',
    pathParams: idParams,
    body: ReplayBody.optional(),
    responses: { 201: single(Action), 404: ErrorBody, 409: ErrorBody, 413: ErrorBody, ...authErrors },
    summary: 'Replay a finished action as a new one',
    description:
      'On an action in a final state (`executed`, `failed`, `expired`, `cancelled`): creates a NEW action from its definition ' +
      'through the same checks as `POST /v1/actions` (validation, quota, destination thresholds, SSRF), due at once unless ' +
      '`schedule` / `scheduled_for` says otherwise. Its `replay_of` is the original, which lists it in `replays`; it is signed ' +
      'with its own `webhook-id`. 409 for an action that is not final. The idempotency key is not copied.',
  },
});

export const bulkOperationsContract = c.router({
  create: {
    method: 'POST',
    path: '/v1/bulk-operations',
    body: BulkOperationCreate,
    responses: { 200: single(BulkDryRun), 202: single(BulkOperation), ...authErrors },
    summary: 'Dry-run or start a bulk operation',
    description:
      'Applies `cancel`, `retry`, `replay`, `pause` or `resume` to the actions a filter (the filters of `GET /v1/actions`) or a ' +
      'list of ids matches. `dry_run` defaults to true: 200 with the counts, nothing changes. With `dry_run: false`: 202; ' +
      'the matched set is fixed when it starts and worked through by the worker in batches (`GET /v1/bulk-operations/{id}`).',
  },
  list: {
    method: 'GET',
    path: '/v1/bulk-operations',
    query: BulkOperationListQuery,
    responses: { 200: paginated(BulkOperation), ...authErrors },
    summary: 'List bulk operations, newest first',
  },
  get: {
    method: 'GET',
    path: '/v1/bulk-operations/:id',
    pathParams: idParams,
    responses: { 200: single(BulkOperation), 404: ErrorBody, ...authErrors },
    summary: 'A bulk operation and its progress',
  },
  stop: {
    method: 'DELETE',
    path: '/v1/bulk-operations/:id',
    pathParams: idParams,
    body: c.noBody(),
    responses: { 200: single(BulkOperation), 404: ErrorBody, 409: ErrorBody, ...authErrors },
    summary: 'Stop a running bulk operation',
    description:
      'The batch in progress finishes; the remaining actions are left as they are and the operation ends `stopped`. 409 when it has already ended.',
  },
});
