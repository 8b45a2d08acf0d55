import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { CancelledChain, Chain, ChainCreateBody, ChainListQuery, ChainSummary } from '../schemas/chain.js';
import { authErrors, ErrorBody, paginated, single, Uuid } from '../schemas/common.js';

const c = initContract();
const idParams = z.object({ id: Uuid });

export const chainsContract = c.router({
  create: {
    method: 'POST',
    path: '/v1/chains',
    body: ChainCreateBody,
    responses: { 201: single(Chain), ...authErrors },
    summary: 'Start a chain',
    description:
      'Creates a chain of 2 to 20 steps (`http_call`/`webhook`, `gated`/`approval`, `delay`/`wait`) and starts its first step. ' +
      'Answers 201 with the detail view. Business plan only: other plans get 403. Expressions are checked here and resolved ' +
      'when each step starts. With `callback_url`, the chain POSTs `ChainCallback` events there (signed and retried like action callbacks).',
  },
  list: {
    method: 'GET',
    path: '/v1/chains',
    query: ChainListQuery,
    responses: { 200: paginated(ChainSummary), ...authErrors },
    summary: 'List chains',
    description: 'Newest first, paginated (`page`, `per_page` up to 100); `status` filters.',
  },
  get: {
    method: 'GET',
    path: '/v1/chains/:id',
    pathParams: idParams,
    responses: { 200: single(Chain), 404: ErrorBody, ...authErrors },
    summary: 'Get a chain with its steps and context',
    description:
      'Each step with its status, outcome and error, and the context later steps read (`{{steps.N.response...}}`).',
  },
  cancel: {
    method: 'DELETE',
    path: '/v1/chains/:id',
    pathParams: idParams,
    body: c.noBody(),
    responses: { 200: single(CancelledChain), 404: ErrorBody, 409: ErrorBody, ...authErrors },
    summary: 'Cancel a chain',
    description:
      "Only `pending` or `running` chains (409 otherwise). Pending and running steps become `cancelled`; a waiting gate's links " +
      'stop working at once (410). Steps already run are not rolled back.',
  },
});
