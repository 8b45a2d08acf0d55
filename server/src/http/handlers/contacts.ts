import { apiContract as contract } from '@sched/contract';
import { initServer } from '@ts-rest/fastify';
import type { ContactService } from '../../app/directory/contacts.js';
import { seesCredentials } from '../../domain/auth/api-key.js';
import { principalOf } from '../auth.js';

const s = initServer();

export function contactsHandlers(contacts: ContactService) {
  return s.router(contract.contacts, {
    list: async ({ request }) => ({
      status: 200,
      body: {
        data: await contacts.list(
          principalOf(request).accountId,
          seesCredentials(principalOf(request).scopes),
        ),
      },
    }),
    create: async ({ request, body }) => ({
      status: 201,
      body: { data: await contacts.create(principalOf(request).accountId, body) },
    }),
    get: async ({ request, params }) => ({
      status: 200,
      body: {
        data: await contacts.get(
          principalOf(request).accountId,
          params.id,
          seesCredentials(principalOf(request).scopes),
        ),
      },
    }),
    update: async ({ request, params, body }) => ({
      status: 200,
      body: { data: await contacts.update(principalOf(request).accountId, params.id, body) },
    }),
    delete: async ({ request, params }) => {
      await contacts.delete(principalOf(request).accountId, params.id);
      return { status: 204, body: undefined };
    },
  });
}
