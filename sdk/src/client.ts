import { type ContactCreate, type ContactUpdate, contract } from '@sched/contract';
import { initClient } from '@ts-rest/core';
// Named so the emitted declarations can refer to fetch's option types portably.
export type { RequestCache } from 'undici-types';
import { SchedApiError, SchedConnectionError } from './errors.js';

export interface ClientOptions {
  /** The service root, e.g. `http://localhost:8080` (a trailing `/v1` is accepted too). */
  baseUrl: string;
  apiKey: string;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

interface RawResult {
  status: number;
  body: unknown;
  headers: Headers;
}

/** Returns the body of an expected status, or throws a typed error carrying the server's message. */
export function unwrap<T>(result: RawResult, ok: number): T {
  if (result.status === ok) return result.body as T;
  const body = (result.body ?? {}) as { message?: unknown; errors?: unknown };
  const message =
    typeof body.message === 'string' ? body.message : `request failed with status ${result.status}`;
  const errors = (body.errors && typeof body.errors === 'object' ? body.errors : {}) as Record<
    string,
    string[]
  >;
  const retryAfter = result.headers.get('retry-after');
  throw new SchedApiError(
    result.status,
    message,
    errors,
    retryAfter ? Number(retryAfter) : null,
    result.body,
  );
}

export function createRawClient(options: ClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  return initClient(contract, {
    baseUrl,
    baseHeaders: { authorization: `Bearer ${options.apiKey}`, ...options.headers },
    throwOnUnknownStatus: false,
    validateResponse: false,
    api: async (args) => {
      try {
        const res = await fetch(args.path, {
          method: args.method,
          headers: args.headers,
          ...(args.body !== undefined && args.body !== null ? { body: args.body as string } : {}),
        });
        const text = await res.text();
        let body: unknown = text;
        if ((res.headers.get('content-type') ?? '').includes('application/json') && text)
          body = JSON.parse(text);
        return { status: res.status, body, headers: res.headers };
      } catch (err) {
        throw new SchedConnectionError(`cannot reach ${baseUrl}: ${(err as Error).message}`, { cause: err });
      }
    },
  });
}

/** The sched API client: one method per endpoint, returning the resource, throwing `SchedApiError` otherwise. */
export function createClient(options: ClientOptions) {
  const raw = createRawClient(options);
  return {
    raw,
    contacts: {
      list: async () => unwrap<{ data: ContactDto[] }>(await raw.contacts.list(), 200).data,
      create: async (body: ContactCreate) =>
        unwrap<{ data: ContactDto }>(await raw.contacts.create({ body }), 201).data,
      get: async (id: string) =>
        unwrap<{ data: ContactDto }>(await raw.contacts.get({ params: { id } }), 200).data,
      update: async (id: string, body: ContactUpdate) =>
        unwrap<{ data: ContactDto }>(await raw.contacts.update({ params: { id }, body }), 200).data,
      delete: async (id: string) => {
        unwrap<unknown>(await raw.contacts.delete({ params: { id } }), 204);
      },
    },
  };
}

export type SchedClient = ReturnType<typeof createClient>;
type ContactDto = import('@sched/contract').Contact;
