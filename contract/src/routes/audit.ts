import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  AuditEventsPage,
  AuditEventsQuery,
  AuditSettings,
  AuditSettingsUpdate,
  AuditVerification,
} from '../schemas/audit.js';
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
  getSettings: {
    method: 'GET',
    path: '/v1/audit-events/settings',
    responses: { 200: single(AuditSettings), ...authErrors },
    summary: 'Show the audit settings',
    description:
      "Which data events the account's log records (`action_create`: each action's create, on by default).",
  },
  updateSettings: {
    method: 'PATCH',
    path: '/v1/audit-events/settings',
    body: AuditSettingsUpdate,
    responses: { 200: single(AuditSettings), ...authErrors },
    // Whether creates are recorded is the log's own configuration: the key needs `admin` (server/src/http/auth.ts).
    metadata: { scope: 'admin' } as const,
    summary: 'Change the audit settings',
    description:
      "Turns the `action.create` data event on or off for the account's later creates; the change itself is recorded (`account.update`). Needs an API key with the `admin` scope.",
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
