import { apiContract as contract } from '@sched/contract';
import { initServer } from '@ts-rest/fastify';
import type { DomainService } from '../../app/domains/service.js';
import { principalOf } from '../auth.js';

const s = initServer();

export function domainsHandlers(domains: DomainService) {
  return s.router(contract.domains, {
    list: async ({ request }) => ({
      status: 200,
      body: { data: await domains.list(principalOf(request).accountId) },
    }),
    verify: async ({ request, params }) => ({
      status: 200,
      body: { data: await domains.verify(principalOf(request).accountId, params.domain) },
    }),
    get: async ({ request, params }) => ({
      status: 200,
      body: { data: await domains.get(principalOf(request).accountId, params.domain) },
    }),
    check: async ({ request, params }) => ({
      status: 200,
      body: { data: await domains.check(principalOf(request).accountId, params.domain) },
    }),
    remove: async ({ request, params }) => {
      await domains.remove(principalOf(request).accountId, params.domain);
      return { status: 204, body: undefined };
    },
  });
}
