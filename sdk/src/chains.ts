import type { CancelledChain, Chain, ChainCreateBody, ChainStepInput, ChainSummary } from '@sched/contract';
import type { z } from 'zod';
import type { createRawClient } from './client.js';
import { collect, paginate, paginatePages } from './pagination.js';
import type { Page } from './types.js';
import { unwrap } from './unwrap.js';

type RawClient = ReturnType<typeof createRawClient>;

/** `GET /v1/chains` filters: `status`, `page` (from 1), `per_page` (default 20, at most 100). */
export interface ChainListQuery {
  status?: Chain['status'];
  page?: number;
  per_page?: number;
}

export type ChainStatus = Chain['status'];
/** A step on input: `http_call`/`webhook`, `gated`/`approval` or `delay`/`wait`, discriminated by `type`. */
export type ChainStep = ChainStepInput;
export type { Chain, ChainCreateBody, ChainSummary };
export type CancelledChainResult = z.infer<typeof CancelledChain>;

export function chainsApi(raw: RawClient) {
  const list = async (query: ChainListQuery = {}): Promise<Page<ChainSummary>> =>
    unwrap(await raw.chains.list({ query }), 200);
  return {
    /** Starts a chain (`POST /v1/chains`, Business plan); answers its detail view, first step already started. */
    create: async (body: ChainCreateBody): Promise<Chain> =>
      unwrap(await raw.chains.create({ body }), 201).data,
    /** One page of summaries with `meta`, newest first. */
    list,
    /** Every matching summary across all pages, fetched lazily: `for await (const c of sched.chains.iterate())`. */
    iterate: (query: ChainListQuery = {}): AsyncGenerator<ChainSummary, void, undefined> =>
      paginate(list, query),
    /** Every page from `query.page` (default 1). */
    pages: (query: ChainListQuery = {}): AsyncGenerator<Page<ChainSummary>, void, undefined> =>
      paginatePages(list, query),
    /** Every matching summary in one array. */
    listAll: (query: ChainListQuery = {}): Promise<ChainSummary[]> => collect(paginate(list, query)),
    /** The chain with its steps (status, outcome, timing) and `context.steps`. */
    get: async (id: string): Promise<Chain> => unwrap(await raw.chains.get({ params: { id } }), 200).data,
    /** Cancels a `pending` or `running` chain; any other status is a 409. */
    cancel: async (id: string): Promise<CancelledChainResult> =>
      unwrap(await raw.chains.cancel({ params: { id } }), 200).data,
  };
}
