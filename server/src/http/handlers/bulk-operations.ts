import { apiContract as contract } from '@sched/contract';
import { initServer } from '@ts-rest/fastify';
import type { BulkOperations } from '../../app/bulk/service.js';
import { principalOf } from '../auth.js';

const s = initServer();

export function bulkOperationsHandlers(bulk: BulkOperations) {
  return s.router(contract.bulkOperations, {
    create: async ({ request, body }) => {
      const result = await bulk.create(principalOf(request), body);
      return result.kind === 'dry_run'
        ? { status: 200, body: { data: result.data } }
        : { status: 202, body: { data: result.data } };
    },
    list: async ({ request, query }) => ({
      status: 200,
      body: await bulk.list(principalOf(request).accountId, query),
    }),
    get: async ({ request, params }) => ({
      status: 200,
      body: { data: await bulk.get(principalOf(request).accountId, params.id) },
    }),
    stop: async ({ request, params }) => ({
      status: 200,
      body: { data: await bulk.stop(principalOf(request).accountId, params.id) },
    }),
  });
}
