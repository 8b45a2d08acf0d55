/** Thrown for every answer outside 2xx: carries the status, the server's message and, on 422, field errors. */
export class SchedApiError extends Error {
  override name = 'SchedApiError';
  constructor(
    readonly status: number,
    message: string,
    /** Dotted field path → messages (422 only). */
    readonly errors: Record<string, string[]> = {},
    /** Seconds to wait, on 429. */
    readonly retryAfterSeconds: number | null = null,
    readonly body: unknown = undefined,
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
}

/** Network failure before any answer (refused connection, DNS, timeout). */
export class SchedConnectionError extends Error {
  override name = 'SchedConnectionError';
}

/** A webhook request whose signature did not verify (`assertWebhook`). `reason` says why, e.g. `signature mismatch`. */
export class SchedSignatureError extends Error {
  override name = 'SchedSignatureError';
  constructor(readonly reason: string) {
    super(`webhook signature rejected: ${reason}`);
  }
}
