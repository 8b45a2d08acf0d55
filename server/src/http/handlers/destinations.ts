import { apiContract as contract } from '@sched/contract';
import { initServer } from '@ts-rest/fastify';
import type { Destinations } from '../../app/destinations/service.js';
import type { DestinationTests } from '../../app/destinations/test-send.js';
import { principalOf } from '../auth.js';

const s = initServer();

export function destinationsHandlers(destinations: Destinations, tests: DestinationTests) {
  return s.router(contract.destinations, {
    list: async ({ request, query }) => ({
      status: 200,
      body: await destinations.list(principalOf(request).accountId, query),
    }),
    get: async ({ request, params }) => ({
      status: 200,
      body: { data: await destinations.get(principalOf(request).accountId, params.host) },
    }),
    update: async ({ request, params, body }) => ({
      status: 200,
      body: { data: await destinations.update(principalOf(request).accountId, params.host, body) },
    }),
    pause: async ({ request, params, body }) => ({
      status: 200,
      body: { data: await destinations.pause(principalOf(request).accountId, params.host, body) },
    }),
    resume: async ({ request, params }) => ({
      status: 200,
      body: { data: await destinations.resume(principalOf(request).accountId, params.host) },
    }),
    enable: async ({ request, params }) => ({
      status: 200,
      body: { data: await destinations.enable(principalOf(request).accountId, params.host) },
    }),
    test: async ({ request, params, body }) => ({
      status: 200,
      body: { data: await tests.send(principalOf(request).accountId, params.host, body) },
    }),
    recover: async ({ request, params, body }) => {
      const result = await destinations.recover(principalOf(request), params.host, body);
      return result.kind === 'dry_run'
        ? { status: 200, body: { data: result.data } }
        : { status: 202, body: { data: result.data } };
    },
  });
}
