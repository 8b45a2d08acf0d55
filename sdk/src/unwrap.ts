import { SchedApiError } from './errors.js';

/** What a ts-rest client call answers: one member per status the contract declares (and unknown ones). */
export interface RawResult {
  status: number;
  body: unknown;
  headers: Headers;
}

/** The body the contract declares for `status` in a ts-rest result union. */
export type BodyOf<R extends RawResult, S extends number> = Extract<R, { status: S }>['body'];

/**
 * Returns the body of the expected status, typed by the contract's response schema for that status (so changing a
 * response schema changes, and may break, the SDK's types), or throws a typed error carrying the server's message.
 */
export function unwrap<R extends RawResult, S extends R['status']>(result: R, ok: S): BodyOf<R, S> {
  if (result.status === ok) return result.body as BodyOf<R, S>;
  throw apiError(result);
}

function apiError(result: RawResult): SchedApiError {
  const body = (result.body && typeof result.body === 'object' ? result.body : {}) as {
    message?: unknown;
    errors?: unknown;
    code?: unknown;
  };
  const message =
    typeof body.message === 'string' ? body.message : `request failed with status ${result.status}`;
  const errors = (body.errors && typeof body.errors === 'object' ? body.errors : {}) as Record<
    string,
    string[]
  >;
  const retryAfter = result.headers.get('retry-after');
  return new SchedApiError(
    result.status,
    message,
    errors,
    retryAfter ? Number(retryAfter) : null,
    result.body,
    typeof body.code === 'string' ? body.code : 'unknown_error',
  );
}
