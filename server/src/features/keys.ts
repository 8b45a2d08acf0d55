import { apiContract } from '@sched/contract';
import { apiKeysHandlers } from '../http/handlers/api-keys.js';
import type { Feature } from './feature.js';

/** API keys (admin scope): issue, scope, rotate, revoke; the account's signing secret. */
export const keysFeature: Feature = {
  name: 'keys',
  async routes(_app, http, { ctx }) {
    await http.contract(apiContract.apiKeys, apiKeysHandlers(ctx.accounts));
  },
};
