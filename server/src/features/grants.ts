import { apiContract } from '@sched/contract';
import { GrantService } from '../app/grants/service.js';
import { grantsHandlers } from '../http/handlers/grants.js';
import type { Feature } from './feature.js';

/** Standing grants: approvals given ahead of time. */
export const grantsFeature: Feature = {
  name: 'grants',
  async routes(_app, http, { ctx }) {
    const grants = new GrantService({ store: ctx.db.main, clock: ctx.clock });
    await http.contract(apiContract.grants, grantsHandlers(grants));
  },
};
