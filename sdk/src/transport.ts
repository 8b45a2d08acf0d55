import type { ApiFetcher } from '@ts-rest/core';
import { SchedConnectionError } from './errors.js';

/**
 * ts-rest's transport on the global fetch: JSON bodies parsed when the answer says JSON, network failures as
 * `SchedConnectionError` naming `target` (never the full URL: a response link's token is a credential).
 */
export function fetchApi(target: string): ApiFetcher {
  return async (args) => {
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
      throw new SchedConnectionError(`cannot reach ${target}: ${(err as Error).message}`, { cause: err });
    }
  };
}
