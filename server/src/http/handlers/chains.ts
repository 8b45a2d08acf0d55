import { apiContract as contract } from '@sched/contract';
import { initServer } from '@ts-rest/fastify';
import type { ChainService } from '../../app/chains/service.js';
import { seesCredentials } from '../../domain/auth/api-key.js';
import { principalOf } from '../auth.js';

const s = initServer();

export function chainsHandlers(chains: ChainService) {
  return s.router(contract.chains, {
    create: async ({ request, body }) => ({
      status: 201,
      body: { data: await chains.create(principalOf(request), body) },
    }),
    list: async ({ request, query }) => ({
      status: 200,
      body: await chains.list(principalOf(request).accountId, query),
    }),
    get: async ({ request, params }) => ({
      status: 200,
      body: {
        data: await chains.get(
          principalOf(request).accountId,
          params.id,
          seesCredentials(principalOf(request).scopes),
        ),
      },
    }),
    cancel: async ({ request, params }) => ({
      status: 200,
      body: { data: await chains.cancel(principalOf(request).accountId, params.id) },
    }),
  });
}
