import type {
  BulkDryRun,
  BulkOperation,
  Destination,
  DestinationPauseBody,
  DestinationRecoverBody,
  DestinationSummary,
  DestinationTestBody,
  DestinationTestResult,
  DestinationUpdate,
} from '@sched/contract';
import type { z } from 'zod';
import { collect, paginate } from './pagination.js';
import { callArgs, type RawClient } from './raw.js';
import type { CallOptions } from './transport.js';
import type { Page } from './types.js';
import { unwrap } from './unwrap.js';

export type { Destination, DestinationSummary, DestinationUpdate };
export type DestinationRecoverInput = z.input<typeof DestinationRecoverBody>;
export type { DestinationTestResult };
/** Where on the host the test goes: `path` (default `/`), `scheme` (default `https`), `port`. */
export type DestinationTestInput = z.input<typeof DestinationTestBody>;
/** A page of `GET /v1/destinations` (`per_page` up to 100, the default). */
export interface DestinationListQuery {
  page?: number;
  per_page?: number;
}

/**
 * Destinations (`/v1/destinations`), keyed by origin (scheme, host and port): settings, circuit, pause, load and
 * recovery of one receiver. Each method takes an origin (`'http://127.0.0.1:9000'`) or a bare host, which means its
 * https origin on the default port (`'api.example.com'` is `'https://api.example.com'`); `recover` with a bare host
 * retries every origin of the host.
 * `await sched.destinations.pause('https://api.example.com', { note: 'maintenance' })`, later `resume`, then
 * `await sched.destinations.recover('api.example.com', { since, dry_run: false })`.
 */
export interface DestinationsApi {
  /** Every origin of the account, in origin order (every page fetched, 100 origins a request). */
  list(options?: CallOptions): Promise<DestinationSummary[]>;
  /** One page of origins with `meta` (`GET /v1/destinations`), in origin order. */
  listPage(query?: DestinationListQuery, options?: CallOptions): Promise<Page<DestinationSummary>>;
  /** Every origin, a page fetched at a time: `for await (const d of sched.destinations.iterate())`. */
  iterate(options?: CallOptions): AsyncGenerator<DestinationSummary, void, undefined>;
  get(host: string, options?: CallOptions): Promise<Destination>;
  /** Flow control and circuit settings; a part left out keeps its value, `null` clears it. */
  update(host: string, body: DestinationUpdate, options?: CallOptions): Promise<Destination>;
  /** Holds every delivery to the origin (no attempt spent) until `resume` or `until`. */
  pause(host: string, body?: DestinationPauseBody, options?: CallOptions): Promise<Destination>;
  resume(host: string, options?: CallOptions): Promise<Destination>;
  /** Closes the origin's circuit whatever its state (a `disabled` one holds every delivery until this). */
  enable(host: string, options?: CallOptions): Promise<Destination>;
  /** A bulk retry of the destination's actions that failed since `since`: a dry run (the default) or the operation. */
  recover(
    host: string,
    body: DestinationRecoverInput,
    options?: CallOptions,
  ): Promise<BulkDryRun | BulkOperation>;
  /**
   * Sends one signed `sched.test` request to the host now and answers what it did (`status`, `duration_ms`,
   * `error`, `response_excerpt`). Once per host every 5 seconds: a `SchedApiError` with status 429 otherwise.
   */
  test(host: string, body?: DestinationTestInput, options?: CallOptions): Promise<DestinationTestResult>;
}

export function destinationsApi(raw: RawClient): DestinationsApi {
  // The raw client URL-encodes each parameter: an origin travels as one path segment (`http%3A%2F%2F…`).
  const params = (host: string, o?: CallOptions) => ({ params: { host }, ...callArgs(o) });
  const listPage = async (
    query: DestinationListQuery = {},
    o?: CallOptions,
  ): Promise<Page<DestinationSummary>> => unwrap(await raw.destinations.list({ query, ...callArgs(o) }), 200);
  const byPage = (o?: CallOptions) => (q: DestinationListQuery) => listPage(q, o);
  return {
    list: (o) => collect(paginate(byPage(o), {})),
    listPage,
    iterate: (o) => paginate(byPage(o), {}),
    get: async (host, o) => unwrap(await raw.destinations.get(params(host, o)), 200).data,
    update: async (host, body, o) =>
      unwrap(await raw.destinations.update({ ...params(host, o), body }), 200).data,
    pause: async (host, body = {}, o) =>
      unwrap(await raw.destinations.pause({ ...params(host, o), body }), 200).data,
    resume: async (host, o) => unwrap(await raw.destinations.resume(params(host, o)), 200).data,
    enable: async (host, o) => unwrap(await raw.destinations.enable(params(host, o)), 200).data,
    test: async (host, body = {}, o) =>
      unwrap(await raw.destinations.test({ ...params(host, o), body }), 200).data,
    async recover(host, body, o) {
      const result = await raw.destinations.recover({ ...params(host, o), body });
      if (result.status === 200) return result.body.data;
      return unwrap(result, 202).data;
    },
  };
}
