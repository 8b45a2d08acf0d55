import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { BulkDryRun, BulkOperation, BulkOperationCreate, BulkOperationListQuery } from '../schemas/bulk.js';
import { authErrors, ErrorBody, paginated, single, Uuid } from '../schemas/common.js';

const c = initContract();
const idParams = z.object({ id: Uuid });

export const bulkOperationsContract = c.router({
  create: {
    method: 'POST',
    path: '/v1/bulk-operations',
    body: BulkOperationCreate,
    responses: { 200: single(BulkDryRun), 202: single(BulkOperation), 409: ErrorBody, ...authErrors },
    summary: 'Dry-run or start a bulk operation',
    description:
      'Applies `cancel`, `retry`, `replay`, `pause` or `resume` to the actions a filter (the filters of `GET /v1/actions`) or a ' +
      'list of ids matches. `dry_run` defaults to true: 200 with the counts, nothing changes. With `dry_run: false`: 202; ' +
      'the matched set is fixed when it starts and worked through by the worker in batches (`GET /v1/bulk-operations/{id}`). ' +
      "409 when the set grew past the dry run's `expected_matched` or the account already runs its most. docs/operations.md.",
    metadata: {
      example: {
        request: {
          operation: 'retry',
          filter: { status: 'failed', destination_host: 'api.example.com' },
          dry_run: true,
          note: 'partner outage of 25 Nov',
        },
      },
    },
  },
  list: {
    method: 'GET',
    path: '/v1/bulk-operations',
    query: BulkOperationListQuery,
    responses: { 200: paginated(BulkOperation), ...authErrors },
    summary: 'List bulk operations, newest first',
    description:
      "The account's bulk operations (a dry run starts none, so it is not listed), paginated, filtered by `status`, each with its operation, filter, note and counts.",
  },
  get: {
    method: 'GET',
    path: '/v1/bulk-operations/:id',
    pathParams: idParams,
    responses: { 200: single(BulkOperation), 404: ErrorBody, ...authErrors },
    summary: 'A bulk operation and its progress',
    description:
      'Its status and counts (matched, processed, affected, skipped, failed) as the worker applies it batch by batch; poll it until `finished_at` is set. 404 for an unknown id or one of another account.',
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
