import { apiContract as contract } from '@sched/contract';
import { initServer } from '@ts-rest/fastify';
import type { AccountService } from '../../app/accounts.js';
import { principalOf } from '../auth.js';

const s = initServer();

/** `/v1/api-keys`: the caller's account's keys; the `admin` scope is checked by authentication (route metadata). */
export function apiKeysHandlers(accounts: AccountService) {
  return s.router(contract.apiKeys, {
    list: async ({ request }) => ({
      status: 200,
      body: { data: await accounts.listLiveKeys(principalOf(request).accountId) },
    }),
    create: async ({ request, body }) => ({
      status: 201,
      body: { data: await accounts.createAccountKey(principalOf(request).accountId, body) },
    }),
    revoke: async ({ request, params }) => {
      await accounts.revokeAccountKey(principalOf(request).accountId, params.id);
      return { status: 204, body: undefined };
    },
    rotate: async ({ request, params, body }) => {
      const r = await accounts.rotateAccountKey(principalOf(request).accountId, params.id, body);
      return {
        status: 201,
        body: {
          data: r.next,
          meta: { previous_key_id: r.previousId, previous_key_expires_at: r.previousExpiresAt },
        },
      };
    },
    getSigningSecret: async ({ request }) => ({
      status: 200,
      body: { data: await accounts.signing.get(principalOf(request).accountId) },
    }),
    createSigningSecret: async ({ request, body }) => ({
      status: 201,
      body: { data: await accounts.signing.rotate(principalOf(request).accountId, body ?? {}) },
    }),
    deleteSigningSecret: async ({ request }) => {
      await accounts.signing.remove(principalOf(request).accountId);
      return { status: 204, body: undefined };
    },
  });
}
