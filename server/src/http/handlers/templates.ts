import { seesCredentials } from '../../domain/auth/api-key.js';
import { apiContract as contract } from '@sched/contract';
import { initServer } from '@ts-rest/fastify';
import type { TemplateService } from '../../app/templates/service.js';
import { principalOf } from '../auth.js';

const s = initServer();

export function templatesHandlers(templates: TemplateService) {
  return s.router(contract.templates, {
    create: async ({ request, body }) => ({
      status: 201,
      body: { data: await templates.create(principalOf(request), body) },
    }),
    list: async ({ request, query }) => ({
      status: 200,
      body: await templates.list(principalOf(request).accountId, query),
    }),
    limits: async ({ request }) => ({ status: 200, body: await templates.limits(principalOf(request)) }),
    get: async ({ request, params }) => ({
      status: 200,
      body: {
        data: await (async () => {
          const p = principalOf(request);
          return templates.get(p, params.id, seesCredentials(p.scopes));
        })(),
      },
    }),
    update: async ({ request, params, body }) => ({
      status: 200,
      body: { data: await templates.update(principalOf(request), params.id, body) },
    }),
    delete: async ({ request, params }) => {
      await templates.delete(principalOf(request).accountId, params.id);
      return { status: 204, body: undefined };
    },
    regenerateToken: async ({ request, params }) => ({
      status: 200,
      body: await templates.regenerateToken(principalOf(request).accountId, params.id),
    }),
    toggleActive: async ({ request, params }) => ({
      status: 200,
      body: await templates.toggleActive(principalOf(request).accountId, params.id),
    }),
  });
}
