import { apiContract } from '@sched/contract';
import { domainsHandlers } from '../http/handlers/domains.js';
import { workDomainChecks } from '../jobs/domains.js';
import type { Feature } from './feature.js';

/** Domains: verification of the hosts an account sends to, and their re-checks (a queue). */
export const domainsFeature: Feature = {
  name: 'domains',
  async routes(_app, http, { ctx }) {
    await http.contract(apiContract.domains, domainsHandlers(ctx.domains));
  },
  async workers({ ctx, failedJob }) {
    return [await workDomainChecks(ctx.queue, ctx.domains, failedJob('domain check'))];
  },
};
