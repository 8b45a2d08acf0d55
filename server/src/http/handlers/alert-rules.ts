import { apiContract as contract } from '@sched/contract';
import { initServer } from '@ts-rest/fastify';
import type { AlertRules } from '../../app/alerts/rules.js';
import { seesCredentials } from '../../domain/auth/api-key.js';
import { principalOf } from '../auth.js';

const s = initServer();

export function alertRulesHandlers(rules: AlertRules) {
  return s.router(contract.alertRules, {
    create: async ({ request, body }) => ({
      status: 201,
      body: { data: await rules.create(principalOf(request), body) },
    }),
    list: async ({ request, query }) => ({
      status: 200,
      body: await rules.list(
        principalOf(request).accountId,
        query,
        seesCredentials(principalOf(request).scopes),
      ),
    }),
    get: async ({ request, params }) => ({
      status: 200,
      body: {
        data: await rules.get(
          principalOf(request).accountId,
          params.id,
          seesCredentials(principalOf(request).scopes),
        ),
      },
    }),
    update: async ({ request, params, body }) => ({
      status: 200,
      body: { data: await rules.update(principalOf(request), params.id, body) },
    }),
    delete: async ({ request, params }) => {
      await rules.delete(principalOf(request).accountId, params.id);
      return { status: 204, body: undefined };
    },
    test: async ({ request, params }) => ({
      status: 202,
      body: { data: await rules.test(principalOf(request).accountId, params.id) },
    }),
  });
}
