import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { AuditEventsPage, AuditEventsQuery, AuditVerification } from '../schemas/audit.js';
import { authErrors, single } from '../schemas/common.js';

const c = initContract();

export const auditContract = c.router({
  list: {
    method: 'GET',
    path: '/v1/audit-events',
    query: AuditEventsQuery.extend({
      after: z.coerce
        .number()
        .int()
        .min(0)
        .optional()
        .meta({ description: 'Keyset: events after this `seq`.' }),
      limit: z.coerce.number().int().min(1).max(1000).default(100),
    }),
    responses: { 200: AuditEventsPage, ...authErrors },
    summary: 'List audit events',
    description:
      "The account's audit log, oldest first by `seq`, page by page with `after` (keyset: stable while events are appended).",
  },
  verify: {
    method: 'GET',
    path: '/v1/audit-events/verify',
    responses: { 200: single(AuditVerification), ...authErrors },
    summary: 'Verify the audit chain',
    description:
      "Recomputes every hash of the account's chain from its anchor. `ok: false` with `broken_at`, the `seq` of the first event that was changed, removed or reordered.",
  },
});

/** Served outside ts-rest (a stream), declared here for the OpenAPI document. */
export const auditExportContract = c.router({
  export: {
    method: 'GET',
    path: '/v1/audit-events/export',
    query: AuditEventsQuery.extend({ format: z.enum(['ndjson', 'csv']).default('ndjson') }),
    responses: {
      200: c.otherResponse({ contentType: 'application/x-ndjson', body: z.string() }),
      ...authErrors,
    },
    summary: 'Export audit events',
    description:
      'Every event the filters match, oldest first, streamed: one JSON object a line (`ndjson`) or CSV with a header row (`csv`; `actor`, `resource` and `details` as JSON).',
  },
});
