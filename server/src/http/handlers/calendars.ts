import { apiContract as contract } from '@sched/contract';
import { initServer } from '@ts-rest/fastify';
import type { CalendarService } from '../../app/calendars/service.js';
import { principalOf } from '../auth.js';

const s = initServer();

export function calendarsHandlers(calendars: CalendarService) {
  return s.router(contract.calendars, {
    list: async ({ request, query }) => ({
      status: 200,
      body: await calendars.list(principalOf(request).accountId, query),
    }),
    create: async ({ request, body }) => ({
      status: 201,
      body: { data: await calendars.create(principalOf(request).accountId, body) },
    }),
    get: async ({ request, params }) => ({
      status: 200,
      body: { data: await calendars.get(principalOf(request).accountId, params.id) },
    }),
    update: async ({ request, params, body }) => ({
      status: 200,
      body: { data: await calendars.update(principalOf(request).accountId, params.id, body) },
    }),
    delete: async ({ request, params }) => {
      await calendars.delete(principalOf(request).accountId, params.id);
      return { status: 204, body: undefined };
    },
    days: async ({ request, params, query }) => ({
      status: 200,
      body: await calendars.days(principalOf(request).accountId, params.id, query),
    }),
  });
}
