import type { CancelledChain, Chain, ChainCreateBody, ChainStepInput, ChainSummary } from '@sched/contract';
import type { z } from 'zod';
import { callArgs, type RawClient } from './raw.js';
import { collect, paginate, paginatePages } from './pagination.js';
import type { CallOptions } from './transport.js';
import type { Page } from './types.js';
import { unwrap } from './unwrap.js';
import { poll, type WaitOptions } from './wait.js';

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

/** Where a chain stops moving by itself. */
export const FINAL_CHAIN_STATES: readonly ChainStatus[] = Object.freeze(['completed', 'failed', 'cancelled']);

/** Options of `chains.wait`: poll until the chain is in one of `until` (default: a final state). */
export interface ChainWaitOptions extends WaitOptions {
  until?: ChainStatus | readonly ChainStatus[];
}

export interface ChainsApi {
  /** Starts a chain (`POST /v1/chains`, Business plan); answers its detail view, first step already started. */
  create(body: ChainCreateBody, options?: CallOptions): Promise<Chain>;
  /** One page of summaries with `meta`, newest first. */
  list(query?: ChainListQuery, options?: CallOptions): Promise<Page<ChainSummary>>;
  /** Every matching summary across all pages, fetched lazily: `for await (const c of sched.chains.iterate())`. */
  iterate(query?: ChainListQuery, options?: CallOptions): AsyncGenerator<ChainSummary, void, undefined>;
  /** Every page from `query.page` (default 1). */
  pages(query?: ChainListQuery, options?: CallOptions): AsyncGenerator<Page<ChainSummary>, void, undefined>;
  /** Every matching summary in one array. */
  listAll(query?: ChainListQuery, options?: CallOptions): Promise<ChainSummary[]>;
  /** The chain with its steps (status, outcome, timing) and `context.steps`. */
  get(id: string, options?: CallOptions): Promise<Chain>;
  /**
   * Polls `get` until the chain's status is one of `until` (default `completed`, `failed` or `cancelled`).
   * Rejects with `SchedWaitTimeoutError` after `timeoutMs` (default 5 minutes).
   */
  wait(id: string, options?: ChainWaitOptions): Promise<Chain>;
  /** Cancels a `pending` or `running` chain; any other status is a 409. */
  cancel(id: string, options?: CallOptions): Promise<CancelledChainResult>;
}

export function chainsApi(raw: RawClient): ChainsApi {
  const list = async (query: ChainListQuery = {}, o?: CallOptions): Promise<Page<ChainSummary>> =>
    unwrap(await raw.chains.list({ query, ...callArgs(o) }), 200);
  const get = async (id: string, o?: CallOptions): Promise<Chain> =>
    unwrap(await raw.chains.get({ params: { id }, ...callArgs(o) }), 200).data;
  const byPage = (o?: CallOptions) => (q: ChainListQuery) => list(q, o);
  return {
    create: async (body, o) => unwrap(await raw.chains.create({ body, ...callArgs(o) }), 201).data,
    list,
    iterate: (query = {}, o) => paginate(byPage(o), query),
    pages: (query = {}, o) => paginatePages(byPage(o), query),
    listAll: (query = {}, o) => collect(paginate(byPage(o), query)),
    get,
    wait: (id, options = {}) => {
      const until = options.until ?? FINAL_CHAIN_STATES;
      const wanted = new Set<string>(typeof until === 'string' ? [until] : until);
      return poll(
        () => get(id, options),
        (c) => wanted.has(c.status),
        options,
        `chain ${id}`,
      );
    },
    cancel: async (id, o) => unwrap(await raw.chains.cancel({ params: { id }, ...callArgs(o) }), 200).data,
  };
}
