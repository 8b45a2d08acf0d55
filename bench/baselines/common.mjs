// What the baseline processes share: the libraries, taken from the server package's own node_modules (the same
// versions sched runs on), the validation of a small action body, and the child side of the driver's protocol.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const serverRequire = createRequire(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'server', 'package.json'),
);
/** fastify, zod, pg, pg-boss or undici, resolved from server/ (require also loads the ESM-only pg-boss on Node 24). */
export const lib = (name) => serverRequire(name);

/** The options every baseline takes; each reads the ones it needs. */
export const args = parseArgs({
  options: {
    port: { type: 'string' },
    db: { type: 'string' },
    receiver: { type: 'string' },
    count: { type: 'string' },
    first: { type: 'string' },
    step: { type: 'string' },
    'lead-ms': { type: 'string' },
  },
}).values;

/** One JSON line to the driver, which reads the child's stdout line by line. */
export const tell = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);

/**
 * The body the load generator sends to every system: a webhook (url, method, headers, body) due at an exact
 * instant. A user's own service would check at least this much.
 */
export function actionBody() {
  const { z } = lib('zod');
  return z.object({
    request: z.object({
      url: z.url(),
      method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('POST'),
      headers: z.record(z.string(), z.string()).optional(),
      body: z.unknown().optional(),
    }),
    scheduled_for: z.iso.datetime({ offset: true }),
  });
}

/** An HTTP baseline: Fastify 5 without request logging, POST /v1/actions answered by `create(validBody)`. */
export async function serveActions(create) {
  const Fastify = lib('fastify');
  const Body = actionBody();
  const app = Fastify({ logger: false });
  app.post('/v1/actions', async (req, reply) => {
    const parsed = Body.safeParse(req.body);
    if (!parsed.success) return reply.code(422).send({ message: 'invalid', errors: parsed.error.issues });
    return reply.code(201).send({ data: await create(parsed.data) });
  });
  await app.listen({ port: Number(args.port), host: '127.0.0.1' });
  tell({ ready: true });
}

/** A POST of `body` to the receiver, as sched sends it: JSON, the id in x-sched-action-id. */
export function poster(receiverUrl) {
  const { Pool } = lib('undici');
  const url = new URL(receiverUrl);
  const pool = new Pool(url.origin, { connections: 128, keepAliveTimeout: 60_000 });
  return async (id, body) => {
    const res = await pool.request({
      path: url.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sched-action-id': id },
      body: JSON.stringify(body),
    });
    await res.body.dump();
    if (res.statusCode >= 300) throw new Error(`receiver answered ${res.statusCode}`);
  };
}
