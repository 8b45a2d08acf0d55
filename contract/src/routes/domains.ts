import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { authErrors, ErrorBody, single } from '../schemas/common.js';
import { DomainCheck, DomainDetail, DomainSummary, DomainVerification } from '../schemas/domain.js';

const c = initContract();
const domainParams = z.object({ domain: z.string().min(1).max(253) });

export const domainsContract = c.router({
  list: {
    method: 'GET',
    path: '/v1/domains',
    responses: { 200: z.object({ data: z.array(DomainSummary) }), ...authErrors },
    summary: 'List destination domains',
    description: 'Every hostname the account has sent actions to or started verifying, by name.',
  },
  verify: {
    method: 'POST',
    path: '/v1/domains/:domain/verify',
    pathParams: domainParams,
    body: c.noBody(),
    responses: { 200: single(DomainVerification), ...authErrors },
    summary: 'Start verifying a domain',
    description:
      'Returns the TXT record and the file that prove the domain. Calling it again returns the same token. Pending domains are checked in the background for 24 hours; `POST /v1/domains/{domain}/check` checks now.',
  },
  get: {
    method: 'GET',
    path: '/v1/domains/:domain',
    pathParams: domainParams,
    responses: { 200: single(DomainDetail), 404: ErrorBody, ...authErrors },
    summary: 'Status and verification instructions of a domain',
    description:
      'Whether the domain is verified, the DNS TXT record or file to publish to verify it, and the latest check.',
  },
  check: {
    method: 'POST',
    path: '/v1/domains/:domain/check',
    pathParams: domainParams,
    body: c.noBody(),
    responses: { 200: single(DomainCheck), 404: ErrorBody, ...authErrors },
    summary: 'Check a domain now',
    description:
      'Tries the TXT record and the file now. 200 either way: `verified` tells the result and `errors` why each method failed. 422 when verification was never started.',
  },
  remove: {
    method: 'DELETE',
    path: '/v1/domains/:domain',
    pathParams: domainParams,
    body: c.noBody(),
    responses: { 204: c.noBody(), 404: ErrorBody, ...authErrors },
    summary: 'Remove a domain',
    description:
      "Removes the verification: the thresholds apply again at once (today's and this month's counts stay, so removing cannot reset them). 204.",
  },
});
