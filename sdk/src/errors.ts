import type { ErrorCode } from '@sched/contract';

/**
 * Thrown for every answer outside 2xx: carries the status, the stable `code`, the server's message and, on 422,
 * field errors. Branch on `code` (`not_found`, `validation_failed`, `rate_limited`, `quota_exhausted`...): it does
 * not change between releases, where `message` may be reworded.
 */
export class SchedApiError extends Error {
  override name = 'SchedApiError';
  constructor(
    readonly status: number,
    message: string,
    /** Dotted field path → messages (422 only). */
    readonly errors: Record<string, string[]> = {},
    /** Seconds to wait, on 429 and on a spent monthly quota. */
    readonly retryAfterSeconds: number | null = null,
    readonly body: unknown = undefined,
    /**
     * The machine-readable error code of the body (see `ErrorCode`); a code this SDK does not know yet is kept as
     * sent, and `unknown_error` stands in when the body carried none (a proxy's HTML page, say).
     */
    readonly code: ErrorCode | (string & {}) = 'unknown_error',
  ) {
    super(message);
  }

  get isNotFound(): boolean {
    return this.status === 404;
  }
  get isValidation(): boolean {
    return this.status === 422;
  }
  get isRateLimited(): boolean {
    return this.status === 429;
  }
  /** The plan's monthly allowance is spent (403 `quota_exhausted`); `retryAfterSeconds` runs to its reset. */
  get isQuotaExhausted(): boolean {
    return this.code === 'quota_exhausted';
  }
}

/** Network failure before any answer (refused connection, DNS, timeout). `code` tells them apart. */
export class SchedConnectionError extends Error {
  override name = 'SchedConnectionError';
  constructor(
    message: string,
    options?: { cause?: unknown; code?: 'network_error' | 'timeout' | 'aborted' },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = options?.code ?? 'network_error';
  }
  /** `timeout`: no answer within `timeoutMs`; `aborted`: the caller's signal fired; `network_error`: anything else. */
  readonly code: 'network_error' | 'timeout' | 'aborted';
}

/** A webhook request whose signature did not verify (`assertWebhook`). `reason` says why, e.g. `signature mismatch`. */
export class SchedSignatureError extends Error {
  override name = 'SchedSignatureError';
  constructor(readonly reason: string) {
    super(`webhook signature rejected: ${reason}`);
  }
}
