import { apiContract as contract } from '@sched/contract';
import { initServer } from '@ts-rest/fastify';
import type { GrantService } from '../../app/grants/service.js';
import { principalOf } from '../auth.js';

const s = initServer();

export function grantsHandlers(grants: GrantService) {
  return s.router(contract.grants, {
    list: async ({ request }) => ({
      status: 200,
      body: { data: await grants.list(principalOf(request).accountId) },
    }),
    revoke: async ({ request, params }) => ({
      status: 200,
      body: { data: await grants.revoke(principalOf(request).accountId, params.id) },
    }),
  });
}
