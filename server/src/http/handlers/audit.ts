import { apiContract as contract, AuditEventsQuery } from '@sched/contract';
import { initServer } from '@ts-rest/fastify';
import type { FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import type { AuditService } from '../../app/audit.js';
import { ValidationError } from '../../app/errors.js';
import { csvRow } from '../../domain/audit/csv.js';
import { principalOf } from '../auth.js';

const s = initServer();

export function auditHandlers(audit: AuditService) {
  return s.router(contract.audit, {
    list: async ({ request, query }) => ({
      status: 200,
      body: await audit.list(principalOf(request).accountId, query),
    }),
    verify: async ({ request }) => ({
      status: 200,
      body: { data: await audit.verify(principalOf(request).accountId) },
    }),
    getSettings: async ({ request }) => ({
      status: 200,
      body: { data: await audit.settings(principalOf(request).accountId) },
    }),
    updateSettings: async ({ request, body }) => ({
      status: 200,
      body: { data: await audit.updateSettings(principalOf(request).accountId, body) },
    }),
  });
}

const CSV_COLUMNS = [
  'seq',
  'id',
  'at',
  'action',
  'actor',
  'resource',
  'channel',
  'ip',
  'user_agent',
  'request_id',
  'details',
  'prev_hash',
  'hash',
] as const;

/**
 * `GET /v1/audit-events/export`: streamed, so an export of years of events holds one page in memory. Registered in
 * the authenticated scope of http/app.ts, outside ts-rest (its body is not JSON).
 */
export function registerAuditExport(scope: FastifyInstance, audit: AuditService): void {
  scope.get('/v1/audit-events/export', async (request, reply) => {
    const raw = request.query as Record<string, unknown>;
    const format = raw.format ?? 'ndjson';
    const parsed = AuditEventsQuery.safeParse(raw);
    const errors: Record<string, string[]> = {};
    if (format !== 'ndjson' && format !== 'csv') errors.format = ['must be ndjson or csv'];
    if (!parsed.success)
      for (const issue of parsed.error.issues) {
        const path = issue.path.join('.');
        errors[path] = [...(errors[path] ?? []), issue.message];
      }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const accountId = principalOf(request).accountId;
    const events = audit.all(accountId, parsed.data!);
    async function* lines() {
      if (format === 'csv') yield csvRow(CSV_COLUMNS);
      for await (const e of events) {
        yield format === 'csv'
          ? csvRow(CSV_COLUMNS.map((c) => (e as Record<string, unknown>)[c]))
          : `${JSON.stringify(e)}\n`;
      }
    }
    const stamp = audit.now().toISOString().slice(0, 10);
    return reply
      .header('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson')
      .header('content-disposition', `attachment; filename="audit-events-${stamp}.${format}"`)
      .send(Readable.from(lines()));
  });
}
