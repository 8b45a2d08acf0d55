import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleSessionService } from '../app/console-sessions.js';
import { ForbiddenError, UnauthorizedError, ValidationError } from '../app/errors.js';
import type { RateLimiter } from '../app/rate-limiter.js';
import { CSRF_HEADER, sessionCookie, signInAllowed } from '../domain/auth/console-session.js';
import { rule } from '../domain/rate-limit/policy.js';
import { enforceRateLimits, safeEqual, secureRequest, sessionIdOf } from './auth.js';

/**
 * Where `pnpm build` writes the console (server/console → server/dist/console): the same place from the compiled
 * server (server/dist/http) and from its sources (server/src/http, under vitest).
 */
export const CONSOLE_DIST = fileURLToPath(new URL('../../dist/console/', import.meta.url));

/**
 * The console's Content-Security-Policy: its own scripts and stylesheets only, API calls to this origin only,
 * nothing inline, nothing framed. Chart and icons are SVG drawn with attributes, which no directive governs.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'x-robots-tag': 'noindex, nofollow',
} as const;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

interface StaticFile {
  body: Buffer;
  type: string;
  /** Vite names every asset by its content hash: such files never change under their name. */
  immutable: boolean;
}

/** Every file of the built console, read once: only these exact paths are served (no path is joined at request time). */
function loadConsoleFiles(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (!existsSync(dir)) return files;
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const rel = relative(dir, path).split(sep).join('/');
        files.set(rel, {
          body: readFileSync(path),
          type: TYPES[extname(name)] ?? 'application/octet-stream',
          immutable: rel.startsWith('assets/'),
        });
      }
    }
  };
  walk(dir);
  return files;
}

export interface ConsoleDeps {
  sessions: ConsoleSessionService;
  rateLimiter: RateLimiter;
  rateLimitFactor: number;
  /** The built console; CONSOLE_DIST unless a test points elsewhere. */
  dist?: string;
  /** SCHED_PUBLIC_URL, or the default local one: an https one makes the cookie `__Host-` and `Secure`. */
  publicUrl: () => string;
  /** NODE_ENV=production: no sign-in over plain http but to a public URL on this machine. */
  production: boolean;
}

/**
 * The operator console (docs/console.md): its static files under `/console`, and `/console/session`, which exchanges
 * an API key for a session cookie (POST), tells the page its CSRF token and scopes (GET), and ends it (DELETE).
 * Everything else the console shows comes from `/v1` through the SDK, authenticated by that cookie.
 */
export function registerConsoleRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  const files = loadConsoleFiles(deps.dist ?? CONSOLE_DIST);
  const secure = (request: FastifyRequest) => secureRequest(request, deps.publicUrl());
  const sessionId = (request: FastifyRequest) => sessionIdOf(request, deps.publicUrl());
  const perIp = (request: FastifyRequest, reply: FastifyReply) =>
    enforceRateLimits(deps.rateLimiter, reply, [rule('unauthenticated', request.ip, deps.rateLimitFactor)]);
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');

  // Every attempt counts against the caller's IP first: guessing keys here costs what it costs on /v1. Only a JSON
  // body is read (no form parser here), so another site cannot sign a browser in with its own key (login CSRF):
  // a cross-origin JSON post needs a CORS preflight the service never grants.
  app.post('/console/session', async (request, reply) => {
    await perIp(request, reply);
    if (!signInAllowed({ secure: secure(request), production: deps.production, publicUrl: deps.publicUrl() }))
      throw new ForbiddenError(
        'the console needs https in production: set SCHED_PUBLIC_URL to the https URL people reach it at',
      );
    const body = request.body as { api_key?: unknown } | undefined;
    const apiKey = body?.api_key;
    if (typeof apiKey !== 'string' || apiKey.length === 0 || apiKey.length > 512)
      throw ValidationError.field('api_key', 'an API key is required');
    const { id, view } = await deps.sessions.signIn(apiKey);
    // Signing in again in the same browser ends the session its cookie held: one browser, one live session.
    const previous = sessionId(request);
    if (previous) await deps.sessions.signOut(previous);
    noStore(reply);
    return reply
      .status(201)
      .header('set-cookie', sessionCookie(id, secure(request)))
      .send({ data: view });
  });

  app.get('/console/session', async (request, reply) => {
    noStore(reply);
    const id = sessionId(request);
    const found = id ? await deps.sessions.keyHashOf(id) : null;
    if (!found) {
      await perIp(request, reply);
      throw new UnauthorizedError('no console session: sign in with an API key');
    }
    return reply.send({ data: found.view });
  });

  app.delete('/console/session', async (request, reply) => {
    // Each sign-out looks a cookie up in the database: counted like every unauthenticated call.
    await perIp(request, reply);
    noStore(reply);
    const id = sessionId(request);
    if (id) {
      const found = await deps.sessions.keyHashOf(id);
      const given = request.headers[CSRF_HEADER];
      // Signing someone out from another origin is a nuisance worth refusing too.
      if (found && (typeof given !== 'string' || !safeEqual(given, found.view.csrf_token)))
        throw new ForbiddenError(`signing out needs the ${CSRF_HEADER} header`);
      await deps.sessions.signOut(id);
    }
    return reply
      .status(204)
      .header('set-cookie', sessionCookie(null, secure(request)))
      .send();
  });

  const serve = (request: FastifyRequest, reply: FastifyReply) => {
    const path = (request.params as { '*'?: string })['*'] ?? '';
    const asset = files.get(path);
    void reply.headers(SECURITY_HEADERS);
    if (asset && path !== 'index.html') {
      return reply
        .header('content-type', asset.type)
        .header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
        .send(asset.body);
    }
    // A missing asset (under assets/, or a file name at the top such as favicon.ico) is a 404; any other path is a
    // view of the app (the URL holds its state), so it gets the page: `destinations/api.example.com` is a view.
    if (path.startsWith('assets/') || (!path.includes('/') && extname(path) !== '')) {
      return reply.status(404).type('text/plain; charset=utf-8').send('not found');
    }
    const page = files.get('index.html');
    if (!page) {
      return reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send('The console is not built: run `pnpm build` (it writes server/dist/console).');
    }
    return reply.header('content-type', page.type).header('cache-control', 'no-cache').send(page.body);
  };
  app.get('/console', serve);
  app.get('/console/*', serve);
}
