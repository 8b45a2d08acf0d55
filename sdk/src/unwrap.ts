import { SchedApiError } from './errors.js';

export interface RawResult {
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
