import { apiContract as contract } from '@sched/contract';
import { initClient } from '@ts-rest/core';
import { type CallOptions, fetchApi, type Send } from './transport.js';

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

/** The ts-rest client over the contract: internal, so its types stay out of the SDK's declarations. */
export function createRawClient(options: ConnectionOptions, send: Send) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  return initClient(contract, {
    baseUrl,
    baseHeaders: {
      ...(options.apiKey !== undefined ? { authorization: `Bearer ${options.apiKey}` } : {}),
      ...options.headers,
    },
    throwOnUnknownStatus: false,
    validateResponse: false,
    api: fetchApi(send, baseUrl),
  });
}

export type RawClient = ReturnType<typeof createRawClient>;

/** The per-call part of a ts-rest call: the caller's `AbortSignal`. */
export function callArgs(options: CallOptions | undefined): { fetchOptions?: { signal: AbortSignal } } {
  return options?.signal ? { fetchOptions: { signal: options.signal } } : {};
}
