import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { authErrors, ErrorBody, single, Uuid } from '../schemas/common.js';
import { Grant } from '../schemas/grant.js';

const c = initContract();

/** Standing grants (`gate.grant`): what approvers allowed, and its revocation. */
export const grantsContract = c.router({
  list: {
    method: 'GET',
    path: '/v1/grants',
    responses: { 200: z.object({ data: z.array(Grant) }), ...authErrors },
    summary: 'List the live standing grants',
    description:
      "The account's standing grants that have neither expired nor been revoked, soonest to end first (at most 500). " +
      'While one lives, an approval request of the account with the same `gate.grant.key` is confirmed at once, without a message.',
  },
  revoke: {
    method: 'DELETE',
    path: '/v1/grants/:id',
    pathParams: z.object({ id: Uuid }),
    responses: { 200: single(Grant), 404: ErrorBody, ...authErrors },
    summary: 'Revoke a standing grant',
    description:
      'Ends the grant now (audited as `grant.revoke`): the next request with its key asks its recipients again. 404 for a grant ' +
      'that is unknown, of another account, expired or already revoked.',
  },
});
