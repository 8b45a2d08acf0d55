/**
 * The one door through which the HTTP channels (sms, slack, teams, push) reach the network. The server injects
 * its SSRF-guarded client here; the default is global fetch with the 30 s bound of every outgoing request.
 */

interface ChannelHttpRequest {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  /** Text for the JSON and form channels; bytes for Web Push, whose body is an encrypted record. */
  body: string | Uint8Array;
  timeoutMs: number;
}

/** A response of any status, or `error` when no response came (refused, timed out, blocked destination). */
type ChannelHttpResult = { status: number; body: string } | { error: string };

export type ChannelHttp = (req: ChannelHttpRequest) => Promise<ChannelHttpResult>;

/** The bound of every outgoing request. */
export const CHANNEL_HTTP_TIMEOUT_MS = 30_000;

/** Answers beyond this are cut: the adapters only read a status word or a small JSON error. */
const MAX_RESPONSE_CHARS = 64 * 1024;

/** The default sender: `fetch` bounded by an AbortSignal timeout, never following redirects. */
export function fetchChannelHttp(fetchImpl: typeof fetch = globalThis.fetch): ChannelHttp {
  return async (req) => {
    try {
      const res = await fetchImpl(req.url, {
        method: req.method,
        headers: req.headers,
        // A Uint8Array view over a shared buffer is copied so fetch sends exactly these bytes.
        body: typeof req.body === 'string' ? req.body : new Uint8Array(req.body),
        redirect: 'manual',
        signal: AbortSignal.timeout(req.timeoutMs),
      });
      const text = await res.text();
      return {
        status: res.status,
        body: text.length > MAX_RESPONSE_CHARS ? text.slice(0, MAX_RESPONSE_CHARS) : text,
      };
    } catch (err) {
      return { error: describeFetchError(err, req.timeoutMs) };
    }
  };
}

function describeFetchError(err: unknown, timeoutMs: number): string {
  if (err instanceof Error) {
    if (err.name === 'TimeoutError' || err.name === 'AbortError') return `timed out after ${timeoutMs} ms`;
    // undici puts the useful part (ECONNREFUSED, ENOTFOUND...) in `cause`.
    const cause = (err as Error & { cause?: unknown }).cause;
    if (cause instanceof Error && cause.message) return `${err.message}: ${cause.message}`;
    return err.message;
  }
  return String(err);
}

/** First characters of a provider answer, for error messages and logs. */
export function excerpt(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
