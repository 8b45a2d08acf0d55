import type { FastifyInstance } from 'fastify';

/** The methods that change something: an account's successful answers to them pin its next reads to the primary. */
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Records each successful authenticated write of an account before its answer leaves (app/reads.ts `wrote`), so the
 * account's next reads, on whichever API process serves them, go to the primary while a read replica may lag.
 */
export function registerWriteRecords(
  app: FastifyInstance,
  recordWrite: (accountId: string) => Promise<void>,
): void {
  app.addHook('onSend', async (request, reply) => {
    if (!WRITE_METHODS.has(request.method) || !request.principal || reply.statusCode >= 400) return;
    // A record lost costs at most a read served from the replica a moment early; the write itself stands.
    await recordWrite(request.principal.accountId).catch((err: unknown) =>
      request.log.warn({ err }, 'could not record the write for read-your-writes'),
    );
  });
}
