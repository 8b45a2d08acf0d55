import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The API reference of the running server: `GET /openapi.json` (the committed document, built from the same
 * contract, with `servers` naming this server) and `GET /docs`, Swagger UI read from the installed
 * `swagger-ui-dist` package and served from this origin: no CDN, and a CSP that allows no inline script or style
 * and no eval. The page's start-up code is a file of its own for the same reason.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>sched API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/start.js"></script>
</body>
</html>
`;

const START = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  tryItOutEnabled: false,
  validatorUrl: null,
  persistAuthorization: false,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const HEADERS = {
  'content-security-policy': DOCS_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

export function registerApiReference(
  app: FastifyInstance,
  deps: {
    /**
     * SCHED_PUBLIC_URL when set; otherwise the document names a relative server (`/`), never the request's Host: a
     * shared cache could hand a document naming a forged host to everyone's "Try it out".
     */
    publicUrl: () => string | undefined;
    /** Serve Swagger UI at `/docs` (SCHED_DOCS; off by default in production: it shares the console's origin). */
    docs?: boolean | undefined;
    /** Rate limit of the unauthenticated probes. */
    limit: (request: FastifyRequest, reply: FastifyReply) => void;
  },
): void {
  const root = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const files = new Map<string, Buffer>();
  const asset = (name: string) => {
    let body = files.get(name);
    if (!body) {
      body = readFileSync(join(root, name));
      files.set(name, body);
    }
    return body;
  };
  // Loaded and built on first use: the document's builder and its libraries cost a start about a tenth of a second,
  // and most servers never serve it.
  let document: Promise<object> | undefined;
  const onRequest = async (request: FastifyRequest, reply: FastifyReply) => deps.limit(request, reply);

  app.get('/openapi.json', { onRequest }, async (_request, reply) => {
    document ??= import('@sched/contract/openapi').then(({ openApiDocument }) => openApiDocument());
    const url = deps.publicUrl() ?? '/';
    const body = JSON.stringify({
      ...(await document),
      servers: [{ url, description: 'This sched server' }],
    });
    return reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('access-control-allow-origin', '*')
      .header('cache-control', 'no-cache')
      .send(body);
  });
  if (deps.docs === false) return;
  app.get('/docs', { onRequest }, async (_request, reply) =>
    reply.headers(HEADERS).header('content-type', 'text/html; charset=utf-8').send(PAGE),
  );
  app.get('/docs/assets/start.js', { onRequest }, async (_request, reply) =>
    reply.headers(HEADERS).header('content-type', 'text/javascript; charset=utf-8').send(START),
  );
  app.get<{ Params: { name: string } }>('/docs/assets/:name', { onRequest }, async (request, reply) => {
    const type = ASSETS[request.params.name];
    if (!type) return reply.status(404).send({ message: 'not found' });
    return reply
      .headers(HEADERS)
      .header('content-type', type)
      .header('cache-control', 'public, max-age=3600')
      .send(asset(request.params.name));
  });
}
