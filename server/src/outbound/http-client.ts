import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import tls from 'node:tls';
import type { LookupFunction, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { MANAGED_REQUEST_HEADERS } from '@sched/contract';
import { Agent, buildConnector } from 'undici';
import type { Dispatcher } from 'undici';
import type { OutboundRequest, OutboundResult } from '../app/ports.js';
import {
  checkDestinationUrl,
  isPlainHttpAllowed,
  isReachableAddress,
  type PrivateAccess,
} from '../domain/destinations/policy.js';

/**
 * The outbound HTTP client every webhook delivery and callback goes through. It never follows redirects,
 * reads at most `maxResponseBytes` of a body, bounds the whole exchange by `timeoutMs`, and refuses
 * destinations the destination policy blocks, judged on the address actually connected to.
 */

export interface OutboundClient {
  send(req: OutboundRequest): Promise<OutboundResult>;
  close(): Promise<void>;
}

export interface OutboundClientOptions {
  /** Which non-public addresses may be reached (domain/destinations/policy.ts). */
  allowPrivate: PrivateAccess;
  userAgent?: string;
  /** Resolver used for destination names; tests inject one. Defaults to `dns.lookup`. */
  lookup?: LookupFunction;
  /** Maximum pooled connections per origin. */
  connections?: number;
  /** Certificate authorities to trust besides the system's (PEM); tests give their receiver's self-signed one. */
  ca?: string;
}

export const DEFAULT_USER_AGENT = 'sched/0.1 (+webhook)';

const CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_CONNECTIONS = 128;
/**
 * How long an idle connection to a destination stays open when the destination's `Keep-Alive` header names no
 * timeout (undici's default is 4 s: a host that receives a webhook every few seconds would pay a new TCP and TLS
 * handshake, 1-3 ms of CPU, for each); a shorter one the destination names wins, a longer one is capped.
 */
const KEEP_ALIVE_MS = 30_000;
const KEEP_ALIVE_MAX_MS = 120_000;
/**
 * TLS sessions kept for resumption, one per destination host (undici's default is 100): a connection reopened to a
 * host seen before resumes its session (an abbreviated handshake) instead of a full one.
 */
const TLS_SESSIONS = 4_096;

/** Raised inside the connection path when a resolved or connected address is not allowed. */
export class DestinationBlockedError extends Error {
  readonly code = 'ERR_DESTINATION_BLOCKED';
  override readonly name = 'DestinationBlockedError';
}

export function createOutboundClient(opts: OutboundClientOptions): OutboundClient {
  const allowPrivate = opts.allowPrivate;
  const userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
  // Bounded per destination (connections), and by time (idle connections close after the keep-alive): each origin's
  // pool empties and is dropped when its host goes quiet.
  const agent = new Agent({
    connect: guardedConnector(allowPrivate, opts.lookup ?? (dns.lookup as LookupFunction), opts.ca),
    connections: opts.connections ?? DEFAULT_CONNECTIONS,
    keepAliveTimeout: KEEP_ALIVE_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_MAX_MS,
    allowH2: false,
    pipelining: 1,
  });

  return {
    send: (req) => send(agent, allowPrivate, userAgent, req),
    close: () => agent.close(),
  };
}

function send(
  agent: Agent,
  allowPrivate: PrivateAccess,
  userAgent: string,
  req: OutboundRequest,
): Promise<OutboundResult> {
  const startedAt = performance.now();
  const elapsed = (): number => Math.round(performance.now() - startedAt);

  const check = checkDestinationUrl(req.url, { allowPrivate });
  if (!check.ok) {
    return Promise.resolve({
      kind: 'blocked',
      durationMs: elapsed(),
      message: `destination URL ${check.message}`,
    });
  }
  const method = req.method.toUpperCase();
  if (method === 'CONNECT') {
    return Promise.resolve({
      kind: 'blocked',
      durationMs: elapsed(),
      message: 'method CONNECT is not allowed',
    });
  }
  const url = check.url;

  return new Promise<OutboundResult>((resolve) => {
    const exchange = new Exchange(req.maxResponseBytes, elapsed, (result) => {
      clearTimeout(timer);
      resolve(result);
    });
    const timer = setTimeout(() => exchange.timeOut(req.timeoutMs), req.timeoutMs);
    agent.dispatch(
      {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: method as Dispatcher.HttpMethod,
        headers: outgoingHeaders(req.headers, userAgent),
        body: req.body ?? null,
        // The whole exchange is bounded by our own timer; these only backstop it.
        headersTimeout: req.timeoutMs + 1_000,
        bodyTimeout: req.timeoutMs + 1_000,
      },
      exchange,
    );
  });
}

function outgoingHeaders(headers: Record<string, string>, userAgent: string): Record<string, string> {
  const out: Record<string, string> = {};
  let hasUserAgent = false;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (MANAGED_REQUEST_HEADERS.has(lower)) continue;
    if (lower === 'user-agent') hasUserAgent = true;
    out[name] = value;
  }
  if (!hasUserAgent) out['user-agent'] = userAgent;
  return out;
}

/**
 * One request's undici handler: collects status, headers and a bounded body, and settles exactly once,
 * whichever of response end, truncation, error or timeout comes first.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private settled = false;
  private controller: Dispatcher.DispatchController | null = null;
  private abandonReason: Error | null = null;
  private status = 0;
  private headers: Record<string, string> = {};
  private readonly chunks: Buffer[] = [];
  private receivedBytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly elapsed: () => number,
    private readonly settle: (result: OutboundResult) => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.abandonReason !== null) {
      controller.abort(this.abandonReason);
      return;
    }
    this.controller = controller;
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.status = statusCode;
    this.headers = flattenHeaders(headers);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    const room = this.maxBytes - this.receivedBytes;
    if (chunk.length > room) {
      if (room > 0) this.chunks.push(chunk.subarray(0, room));
      this.receivedBytes += room;
      this.finish(true);
      // Stop reading; undici closes the connection since the body was not consumed.
      controller.abort(new Error('response body exceeded the read limit'));
      return;
    }
    this.chunks.push(chunk);
    this.receivedBytes += chunk.length;
  }

  onResponseEnd(): void {
    this.finish(false);
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.settle(classifyError(error, this.elapsed()));
  }

  timeOut(timeoutMs: number): void {
    if (this.settled) return;
    this.settled = true;
    const reason = new Error(`timed out after ${timeoutMs} ms`);
    // A request still waiting for a connection has no controller yet: it is aborted when it starts.
    if (this.controller !== null) this.controller.abort(reason);
    else this.abandonReason = reason;
    this.settle({ kind: 'timeout', durationMs: this.elapsed(), message: reason.message });
  }

  private finish(truncated: boolean): void {
    if (this.settled) return;
    this.settled = true;
    this.settle({
      kind: 'response',
      status: this.status,
      headers: this.headers,
      bodyExcerpt: new TextDecoder('utf-8').decode(Buffer.concat(this.chunks)),
      bodyTruncated: truncated,
      durationMs: this.elapsed(),
    });
  }
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

function classifyError(error: Error, durationMs: number): OutboundResult {
  const code = errorCode(error);
  if (error instanceof DestinationBlockedError || code === 'ERR_DESTINATION_BLOCKED') {
    return { kind: 'blocked', durationMs, message: error.message };
  }
  if (code === 'UND_ERR_INVALID_ARG') {
    // A request undici refuses to serialise (bad header value, method) would fail the same way every time.
    return { kind: 'blocked', durationMs, message: `invalid request: ${error.message}` };
  }
  const message = describeError(error);
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return { kind: 'timeout', durationMs, message };
  }
  return { kind: 'connection', durationMs, message, ...(code !== undefined ? { code } : {}) };
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // Happy-eyeballs connects fail with an AggregateError of one error per address tried.
  if (error instanceof AggregateError) return errorCode(error.errors[0] ?? {});
  return undefined;
}

function describeError(error: Error): string {
  const inner = error instanceof AggregateError ? error.errors[0] : undefined;
  const base = error.message !== '' ? error.message : inner instanceof Error ? inner.message : String(error);
  const code = errorCode(error);
  return code !== undefined && !base.includes(code) ? `${code}: ${base}` : base;
}

/**
 * Resolves with the given lookup and refuses the connection when any resolved address may not be reached (a
 * non-public one the access does not allow), before a socket is opened. Refusing on any (rather than filtering)
 * treats a name mixing public and private answers as hostile.
 */
function guardedLookup(base: LookupFunction, allowPrivate: PrivateAccess): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, { ...options, all: true }, (err, result, family) => {
      const fail = (error: NodeJS.ErrnoException): void => callback(error, options.all ? [] : '', undefined);
      if (err) return fail(err);
      const addresses: LookupAddress[] = Array.isArray(result)
        ? result
        : [{ address: result, family: family ?? isIP(result) }];
      const first = addresses[0];
      if (first === undefined) {
        return fail(Object.assign(new Error(`no address found for ${hostname}`), { code: 'ENOTFOUND' }));
      }
      if (addresses.some((a) => !isReachableAddress(a.address, allowPrivate))) {
        // Generic on purpose: naming the address would let a tenant map internal DNS names.
        return fail(new DestinationBlockedError(NON_PUBLIC_MESSAGE));
      }
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

/** What a tenant learns of a refused destination: stored in attempts and sent in `action.failed`. */
const NON_PUBLIC_MESSAGE = 'destination resolves to a non-public address';
const PLAIN_HTTP_CONNECT_MESSAGE =
  'plain http is sent only into the private networks this server allows; use https';

/**
 * A connector that resolves through `guardedLookup` and checks the socket's peer address once connected (and, for
 * plain http, that the peer lies where plain http may go). IP-literal hosts skip name resolution, so the peer check
 * (and the URL check before it) covers them.
 */
export function guardedConnector(
  allowPrivate: PrivateAccess,
  lookup: LookupFunction,
  ca?: string,
): buildConnector.connector {
  const connect = buildConnector({
    allowH2: false,
    timeout: CONNECT_TIMEOUT_MS,
    lookup: guardedLookup(lookup, allowPrivate),
    maxCachedSessions: TLS_SESSIONS,
    // The system's authorities and the extra one (Node's `ca` replaces the defaults, so both are given).
    ...(ca ? { ca: [...tls.rootCertificates, ca] } : {}),
  });
  return (options, callback) => {
    connect(options, (...args) => {
      const [err, socket] = args;
      if (err !== null) return callback(err, null);
      const peer = (socket as Socket).remoteAddress;
      const refused =
        allowPrivate === true
          ? null
          : peer === undefined || !isReachableAddress(peer, allowPrivate)
            ? NON_PUBLIC_MESSAGE
            : options.protocol === 'http:' && !isPlainHttpAllowed(peer, allowPrivate)
              ? PLAIN_HTTP_CONNECT_MESSAGE
              : null;
      if (refused !== null) {
        socket?.destroy();
        return callback(new DestinationBlockedError(refused), null);
      }
      callback(null, socket as Socket);
    });
  };
}
