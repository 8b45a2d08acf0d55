import { SchedConnectionError } from './errors.js';

/** Automatic retries of idempotent calls (GET, DELETE, and POSTs carrying an `idempotency_key`). */
export interface RetryOptions {
  /** Retries after the first try (default 2; 0 turns retrying off). */
  retries?: number;
  /** The first back-off, doubled on each retry, with jitter (default 250 ms). */
  minDelayMs?: number;
  /** The longest back-off, and the longest `Retry-After` honoured (default 10 s; a longer one is not waited). */
  maxDelayMs?: number;
}

/** How the client talks HTTP; every field has a default. */
export interface TransportOptions {
  /**
   * The most one call may take, retries and their waits included (default 30 000 ms); past it the call rejects with
   * `SchedConnectionError` (`code: 'timeout'`). 0 disables it.
   */
  timeoutMs?: number;
  /** `false` never retries. */
  retry?: RetryOptions | false;
  /** A fetch implementation (a proxy agent, a test double, an edge runtime's); default the global `fetch`. */
  fetch?: typeof fetch;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call (and its retries); it rejects with `SchedConnectionError` (`code: 'aborted'`). */
  signal?: AbortSignal;
}

export interface TransportRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  /** Safe to send again: the server does the work at most once. */
  idempotent: boolean;
  signal?: AbortSignal | undefined;
}

export interface TransportResponse {
  status: number;
  body: unknown;
  headers: Headers;
}

const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/**
 * Sends requests with a deadline, a caller's signal, and retries of idempotent calls: network errors, 429 (waiting
 * `Retry-After`) and 502/503/504, with exponential back-off and jitter. A request that is not idempotent is sent
 * once: after a network error nobody knows whether the server acted on it. `target` names the server in errors
 * (never a full URL: a response link's token is a credential).
 */
export function createTransport(options: TransportOptions = {}) {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const retry = options.retry === false ? { retries: 0 } : (options.retry ?? {});
  const retries = Math.max(0, retry.retries ?? 2);
  const minDelayMs = retry.minDelayMs ?? 250;
  const maxDelayMs = retry.maxDelayMs ?? 10_000;
  const fetchImpl: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  return async function send(request: TransportRequest, target: string): Promise<TransportResponse> {
    const deadline = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
    const signals = [deadline, request.signal].filter((s): s is AbortSignal => Boolean(s));
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    const failure = (err: unknown): SchedConnectionError => {
      if (request.signal?.aborted)
        return new SchedConnectionError(`request to ${target} aborted`, { cause: err, code: 'aborted' });
      if (deadline?.aborted)
        return new SchedConnectionError(`no answer from ${target} within ${timeoutMs} ms`, {
          cause: err,
          code: 'timeout',
        });
      return new SchedConnectionError(`cannot reach ${target}: ${(err as Error).message}`, { cause: err });
    };
    for (let attempt = 0; ; attempt += 1) {
      const canRetry = request.idempotent && attempt < retries;
      let res: Response;
      let text: string;
      try {
        res = await fetchImpl(request.url, {
          method: request.method,
          headers: request.headers,
          ...(request.body !== undefined ? { body: request.body } : {}),
          ...(signal ? { signal } : {}),
        });
        text = await res.text();
      } catch (err) {
        if (!canRetry || signal?.aborted) throw failure(err);
        await sleep(backoff(attempt, minDelayMs, maxDelayMs), signal).catch(() => {
          throw failure(err);
        });
        continue;
      }
      if (canRetry && RETRYABLE_STATUSES.has(res.status)) {
        const wait = retryAfterMs(res.headers.get('retry-after')) ?? backoff(attempt, minDelayMs, maxDelayMs);
        if (wait <= maxDelayMs) {
          const slept = await sleep(wait, signal).then(
            () => true,
            () => false,
          );
          // The deadline or the caller ended the wait: answer what the server said rather than a timeout.
          if (slept) continue;
        }
      }
      let body: unknown = text;
      if ((res.headers.get('content-type') ?? '').includes('application/json') && text) {
        try {
          body = JSON.parse(text);
        } catch {
          // A proxy's page under a JSON content type: keep the text, the status tells what happened.
        }
      }
      return { status: res.status, body, headers: res.headers };
    }
  };
}

export type Send = ReturnType<typeof createTransport>;

/** Exponential back-off with jitter: half of the doubled delay, plus up to the other half at random. */
function backoff(attempt: number, minDelayMs: number, maxDelayMs: number): number {
  const ceiling = Math.min(maxDelayMs, minDelayMs * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds; null when absent or unreadable. */
function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
