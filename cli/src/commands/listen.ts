import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ACTION_ID_HEADER,
  ATTEMPT_HEADER,
  MANAGED_REQUEST_HEADERS,
  SERVICE_SIGNATURE_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
} from '@sched/contract';
import { type WebhookVerification, verifyWebhook } from '@sched/sdk';
import type { Command } from 'commander';
import { collectOption, parseNumber, UsageError, wantsJson } from '../runtime.js';

/**
 * `sched listen`: a receiver for development (the loop of `stripe listen`). It prints every request sched sends to it
 * (a delivery or a callback): which action and attempt, whether the signature verifies with the secrets given, and
 * the body. With `--forward-to` it passes each request on to your own endpoint and answers sched with that endpoint's
 * status and body, so sched records what your code answered; without it, it answers `--status`.
 */

/** What `listen` reports for each request, one JSON object per line with `--json`. */
export interface ListenEvent {
  event: 'request';
  at: string;
  method: string;
  path: string;
  action_id: string | null;
  attempt: number | null;
  webhook_id: string | null;
  /** `unsigned`: no signature header; `not_checked`: signed, but no secret was given to check it with. */
  signature: 'verified' | 'invalid' | 'unsigned' | 'not_checked';
  signature_scheme?: string;
  signature_reason?: string;
  body: string;
  /** What this listener answered sched. */
  status: number;
  /** Why it was answered without reading or forwarding it: a body over `--max-body`, or not verified (`--verified-only`). */
  refused?: 'body too large' | 'not verified';
  forwarded?: { url: string; status: number; duration_ms: number } | { url: string; error: string };
}

/** Either signature scheme's header: a request with neither is unsigned. */
const SIGNATURE_HEADERS = [SERVICE_SIGNATURE_HEADER.toLowerCase(), WEBHOOK_SIGNATURE_HEADER];

const header = (headers: IncomingHttpHeaders, name: string): string | null => {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
};

/** The signature's verdict on one request: pure (the clock is given), so tested without a server. */
export function signatureVerdict(
  headers: IncomingHttpHeaders,
  body: Uint8Array,
  secrets: readonly string[],
  now: Date,
): Pick<ListenEvent, 'signature' | 'signature_scheme' | 'signature_reason'> {
  if (!SIGNATURE_HEADERS.some((name) => header(headers, name) !== null)) return { signature: 'unsigned' };
  if (secrets.length === 0) return { signature: 'not_checked' };
  const check: WebhookVerification = verifyWebhook({ secret: secrets, headers, body, now });
  return check.ok
    ? { signature: 'verified', signature_scheme: check.scheme }
    : { signature: 'invalid', signature_reason: check.reason };
}

/** One request as `listen` reports it. */
export function listenEvent(
  req: { method: string; path: string; headers: IncomingHttpHeaders; body: Uint8Array },
  verdict: Pick<ListenEvent, 'signature' | 'signature_scheme' | 'signature_reason'>,
  answer: { status: number; forwarded?: ListenEvent['forwarded']; refused?: ListenEvent['refused'] },
  now: Date,
): ListenEvent {
  const attempt = Number(header(req.headers, ATTEMPT_HEADER));
  return {
    event: 'request',
    at: now.toISOString(),
    method: req.method,
    path: req.path,
    action_id: header(req.headers, ACTION_ID_HEADER),
    attempt: Number.isInteger(attempt) && attempt > 0 ? attempt : null,
    webhook_id: header(req.headers, WEBHOOK_ID_HEADER),
    ...verdict,
    body: Buffer.from(req.body).toString('utf8'),
    status: answer.status,
    ...(answer.forwarded ? { forwarded: answer.forwarded } : {}),
    ...(answer.refused ? { refused: answer.refused } : {}),
  };
}

/** Longest body printed in text mode (`--json` prints it whole). */
const TEXT_BODY_CHARS = 2_000;

/** The largest body read by default; a larger one is answered 413 without being buffered (`--max-body`). */
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * `text` safe to print to a terminal: every control character (C0, DEL, C1) as a visible `\u001b`-style escape, so a
 * client of the listener cannot send escape sequences (colours, the window title, OSC 52 clipboard writes,
 * hyperlinks) to the developer's terminal. `keepNewlines` leaves line feeds and tabs, for an indented body.
 */
export function escapeControls(text: string, keepNewlines = false): string {
  return text.replace(/\p{Cc}/gu, (c) =>
    keepNewlines && (c === '\n' || c === '\t') ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The text lines of one event: a summary line, then the body indented; control characters escaped. */
export function formatListenEvent(e: ListenEvent): string {
  const parts = [`${e.at.slice(11, 23)}  ${escapeControls(e.method)} ${escapeControls(e.path)}`];
  if (e.action_id) parts.push(`action ${escapeControls(e.action_id)}`);
  if (e.attempt !== null) parts.push(`attempt ${e.attempt}`);
  const signature =
    e.signature === 'verified'
      ? `signature verified (${e.signature_scheme})`
      : e.signature === 'invalid'
        ? `signature INVALID: ${escapeControls(e.signature_reason ?? '')}`
        : e.signature === 'unsigned'
          ? 'unsigned'
          : 'signed, not checked (no --secret)';
  parts.push(signature);
  const f = e.forwarded;
  parts.push(
    f
      ? 'error' in f
        ? `→ ${e.status} (forward to ${f.url} failed: ${f.error})`
        : `→ ${e.status} from ${f.url} (${f.duration_ms} ms)`
      : `→ ${e.status}`,
  );
  if (e.refused) parts.push(`(${e.refused})`);
  const cut = e.body.length > TEXT_BODY_CHARS ? `${e.body.slice(0, TEXT_BODY_CHARS)}…` : e.body;
  const body = escapeControls(cut, true);
  return body ? `${parts.join('  ')}\n    ${body.replaceAll('\n', '\n    ')}` : parts.join('  ');
}

interface ListenOptions {
  port: string;
  host: string;
  secret?: string[];
  forwardTo?: string;
  status: string;
  count?: string;
  maxBody: string;
  verifiedOnly?: boolean;
}

export function configureListenCommand(program: Command): void {
  program
    .command('listen')
    .description(
      'a receiver for development: print what sched sends (deliveries, callbacks), verify signatures, forward to your endpoint',
    )
    .option('--port <n>', 'port to listen on (0: any free port, printed at start)', '4000')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option(
      '--secret <secret>',
      'check signatures with this webhook_secret (repeat while rotating; default SCHED_WEBHOOK_SECRET)',
      collectOption,
    )
    .option('--forward-to <url>', 'pass each request on to this URL and answer with its status and body')
    .option('--status <code>', 'the status to answer when not forwarding', '200')
    .option('--count <n>', 'stop after this many requests')
    .option('--max-body <bytes>', 'answer 413 to a larger body, unread', String(DEFAULT_MAX_BODY_BYTES))
    .option(
      '--verified-only',
      'answer 401 to a request whose signature does not verify, without forwarding it',
    )
    .addHelpText(
      'after',
      `
Examples:
  sched listen --port 4000 --secret "$SCHED_WEBHOOK_SECRET"
  sched listen --forward-to http://localhost:3000/webhooks/sched
  sched listen --port 0 --status 503 --count 1 --json
  sched listen --host 0.0.0.0 --verified-only --secret "$SCHED_WEBHOOK_SECRET" --forward-to http://localhost:3000`,
    )
    .action(async (opts: ListenOptions, cmd: Command) => {
      const port = Number(opts.port);
      const status = Number(opts.status);
      if (!Number.isInteger(port) || port < 0 || port > 65_535)
        throw new UsageError('--port takes 0 to 65535');
      if (!Number.isInteger(status) || status < 200 || status > 599)
        throw new UsageError('--status takes an HTTP status from 200 to 599');
      const count = opts.count === undefined ? Number.POSITIVE_INFINITY : parseNumber('--count', opts.count);
      if (!Number.isInteger(count) && count !== Number.POSITIVE_INFINITY)
        throw new UsageError('--count takes a whole number of at least 1');
      let forwardTo: URL | undefined;
      if (opts.forwardTo) {
        try {
          forwardTo = new URL(opts.forwardTo);
        } catch {
          throw new UsageError(`--forward-to is not a URL: ${opts.forwardTo}`);
        }
        if (forwardTo.protocol !== 'http:' && forwardTo.protocol !== 'https:')
          throw new UsageError('--forward-to takes an http or https URL');
      }
      const maxBody = parseNumber('--max-body', opts.maxBody);
      if (!Number.isInteger(maxBody) || maxBody < 0)
        throw new UsageError('--max-body takes a number of bytes');
      const envSecret = process.env.SCHED_WEBHOOK_SECRET;
      const secrets = opts.secret ?? (envSecret ? [envSecret] : []);
      if (opts.verifiedOnly && secrets.length === 0)
        throw new UsageError('--verified-only needs --secret (or SCHED_WEBHOOK_SECRET)');
      await listen(cmd, {
        port,
        host: opts.host,
        secrets,
        forwardTo,
        status,
        count,
        maxBody,
        verifiedOnly: opts.verifiedOnly === true,
      });
    });
}

async function listen(
  cmd: Command,
  o: {
    port: number;
    host: string;
    secrets: string[];
    forwardTo: URL | undefined;
    status: number;
    count: number;
    maxBody: number;
    verifiedOnly: boolean;
  },
): Promise<void> {
  const json = wantsJson(cmd);
  let seen = 0;
  let closing = false;
  const server = createServer((req, res) => {
    if (closing) {
      res.writeHead(503).end();
      return;
    }
    seen += 1;
    const last = seen >= o.count;
    if (last) closing = true;
    void handle(req, res, o).then((event) => {
      process.stdout.write(`${json ? JSON.stringify(event) : formatListenEvent(event)}\n`);
      if (last) server.close();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new UsageError(`port ${o.port} is in use: try --port 0`) : err),
    );
    server.listen(o.port, o.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  process.stderr.write(
    `listening on http://${host}:${port}${o.forwardTo ? `, forwarding to ${o.forwardTo.href}` : ''}` +
      `${o.secrets.length ? ', checking signatures' : ''} (Ctrl-C to stop)\n`,
  );
  const stop = () => server.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await new Promise<void>((resolve) => server.once('close', () => resolve()));
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  o: {
    secrets: string[];
    forwardTo: URL | undefined;
    status: number;
    maxBody: number;
    verifiedOnly: boolean;
  },
): Promise<ListenEvent> {
  const body = await readBody(req, o.maxBody);
  const now = new Date();
  const request = {
    method: req.method ?? 'GET',
    path: req.url ?? '/',
    headers: req.headers,
    body: body ?? Buffer.alloc(0),
  };
  if (body === null) {
    // Answered before the rest arrives; the connection is closed, so an endless body costs nothing more.
    res
      .writeHead(413, { 'content-type': 'text/plain', connection: 'close' })
      .end('sched listen: body too large');
    res.once('finish', () => req.destroy());
    return listenEvent(
      request,
      { signature: 'not_checked' },
      { status: 413, refused: 'body too large' },
      now,
    );
  }
  const verdict = signatureVerdict(req.headers, body, o.secrets, now);
  if (o.verifiedOnly && verdict.signature !== 'verified') {
    res.writeHead(401, { 'content-type': 'text/plain' }).end('sched listen: signature not verified');
    return listenEvent(request, verdict, { status: 401, refused: 'not verified' }, now);
  }
  if (!o.forwardTo) {
    res.writeHead(o.status, { 'content-type': 'application/json' }).end('{"ok":true}');
    return listenEvent(request, verdict, { status: o.status }, now);
  }
  // The path and query sched called are appended to the forward URL's own path.
  const target = new URL(o.forwardTo.href);
  const called = new URL(request.path, 'http://listen');
  target.pathname =
    `${target.pathname.replace(/\/$/, '')}${called.pathname === '/' ? '' : called.pathname}` || '/';
  if (called.search) target.search = called.search;
  // As received, less the connection's own headers (fetch frames the request again).
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined && !MANAGED_REQUEST_HEADERS.has(name))
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const started = performance.now();
  try {
    const answer = await fetch(target, {
      method: request.method,
      headers,
      ...(body.length > 0 && request.method !== 'GET' && request.method !== 'HEAD'
        ? { body: new Uint8Array(body) }
        : {}),
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
    });
    const answered = Buffer.from(await answer.arrayBuffer());
    const contentType = answer.headers.get('content-type');
    res.writeHead(answer.status, contentType ? { 'content-type': contentType } : {}).end(answered);
    return listenEvent(
      request,
      verdict,
      {
        status: answer.status,
        forwarded: {
          url: target.href,
          status: answer.status,
          duration_ms: Math.round(performance.now() - started),
        },
      },
      now,
    );
  } catch (err) {
    res.writeHead(502, { 'content-type': 'text/plain' }).end('sched listen: the forward failed');
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return listenEvent(
      request,
      verdict,
      { status: 502, forwarded: { url: target.href, error: cause ?? (err as Error).message } },
      now,
    );
  }
}

/**
 * The body, or null once it passes `max` bytes (a declared length over it is refused before reading). Reading stops
 * there without destroying the request, so the 413 can still be written on its connection.
 */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | null> {
  if (Number(req.headers['content-length'] ?? 0) > max) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData);
      req.pause();
      resolve(null);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}
