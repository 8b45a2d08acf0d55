import type { apiContract } from '@sched/contract';
import type { InitClientReturn } from '@ts-rest/core';
import { routes } from './routes.js';
import type { CallOptions, Send } from './transport.js';

/** Where the client connects, and as whom. */
export interface ConnectionOptions {
  /** The service root, e.g. `http://localhost:8080` (a trailing `/v1` is accepted too). */
  baseUrl: string;
  /**
   * The API key, sent as `Authorization: Bearer`. Leave it out in a page of the service's own origin (the
   * console): the browser's session cookie authenticates instead, and writes need the session's CSRF token in
   * `headers` (`{ 'x-sched-csrf': token }`; docs/console.md).
   */
  apiKey?: string;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

/**
 * The client over the contract: typed by ts-rest from the contract (types only), sent from the generated route
 * table, so a bundle carries neither ts-rest nor the contract's zod schemas. Internal: its types stay out of the
 * SDK's declarations.
 */
export type RawClient = InitClientReturn<
  typeof apiContract,
  {
    baseUrl: string;
    baseHeaders: Record<string, string>;
    throwOnUnknownStatus: false;
    validateResponse: false;
  }
>;

/** What a call of the raw client takes (the parts the SDK uses). */
interface RawArgs {
  params?: Record<string, string | number>;
  query?: Record<string, unknown>;
  body?: unknown;
  fetchOptions?: { signal?: AbortSignal };
}

export function createRawClient(options: ConnectionOptions, send: Send): RawClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const baseHeaders = lowerCased({
    ...(options.apiKey !== undefined ? { authorization: `Bearer ${options.apiKey}` } : {}),
    ...options.headers,
  });
  const call =
    ([method, path]: readonly [string, string]) =>
    (args: RawArgs = {}) => {
      const hasBody = method !== 'GET' && args.body !== undefined && args.body !== null;
      return send(
        {
          url: `${baseUrl}${withParams(path, args.params)}${queryString(args.query)}`,
          method,
          headers: hasBody ? { 'content-type': 'application/json', ...baseHeaders } : baseHeaders,
          body: hasBody ? JSON.stringify(args.body) : undefined,
          // Safe to repeat: reads and deletes, and creates the server deduplicates by their idempotency key.
          idempotent: method === 'GET' || method === 'DELETE' || carriesIdempotencyKey(args.body),
          signal: args.fetchOptions?.signal,
        },
        baseUrl,
      );
    };
  const client: Record<string, Record<string, ReturnType<typeof call>>> = {};
  for (const [group, entries] of Object.entries(routes)) {
    client[group] = {};
    for (const [name, route] of Object.entries(entries)) client[group][name] = call(route);
  }
  return client as unknown as RawClient;
}

/** The per-call part of a raw client call: the caller's `AbortSignal`. */
export function callArgs(options: CallOptions | undefined): { fetchOptions?: { signal: AbortSignal } } {
  return options?.signal ? { fetchOptions: { signal: options.signal } } : {};
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** `/v1/actions/:id` with its parameters, each URL-encoded so that an id cannot reach another path. */
function withParams(path: string, params: RawArgs['params'] = {}): string {
  return path.replace(/:([a-z_]+)/g, (_, name: string) => encodeURIComponent(String(params[name] ?? '')));
}

/** The query string as ts-rest writes it: `a=1&b[0]=x&c[d]=y` (qs style), undefined values left out. */
function queryString(query: RawArgs['query']): string {
  if (!query) return '';
  const pairs: string[] = [];
  const add = (key: string, value: unknown): void => {
    if (value === undefined) return;
    if (Array.isArray(value)) for (const [i, v] of value.entries()) add(`${key}[${i}]`, v);
    else if (value instanceof Date) add(key, value.toISOString());
    else if (value === null) add(key, '');
    else if (typeof value === 'object')
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) add(`${key}[${k}]`, v);
    else pairs.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  };
  for (const [key, value] of Object.entries(query)) add(key, value);
  return pairs.length > 0 ? `?${pairs.join('&')}` : '';
}

/** A body is an idempotent create when it carries an `idempotency_key` (the server answers a repeat with the first). */
function carriesIdempotencyKey(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { idempotency_key?: unknown }).idempotency_key === 'string'
  );
}
