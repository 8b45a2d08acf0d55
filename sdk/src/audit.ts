import type { AuditEvent, AuditSettingsUpdate } from '@sched/contract';
import type { ConnectionOptions, RawClient } from './raw.js';
import { unwrap } from './unwrap.js';

export interface AuditQuery {
  resource_id?: string;
  /** Exact, or with `*` (`approval.*`). */
  action?: string;
  actor_type?: AuditEvent['actor']['type'];
  /** ISO 8601; inclusive. */
  from?: string;
  /** ISO 8601; exclusive. */
  to?: string;
}

/** The audit log (`/v1/audit-events`, docs/audit.md): who changed what, hash-chained per account. */
export function auditApi(raw: RawClient, options: ConnectionOptions) {
  /** The export's address: what a download link points at where the caller is signed in by cookie (the console). */
  const exportUrl = (format: 'ndjson' | 'csv' = 'ndjson', query: AuditQuery = {}): string => {
    const base = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    const params = new URLSearchParams({ format });
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
    return `${base}/v1/audit-events/export?${params}`;
  };
  return {
    /** One page, oldest first; pass `meta.next_after` as `after` for the next. */
    list: async (query: AuditQuery & { after?: number; limit?: number } = {}) =>
      unwrap(await raw.audit.list({ query }), 200),
    /** Every event the filters match, page by page (keyset), oldest first. */
    async *all(query: AuditQuery = {}): AsyncGenerator<AuditEvent> {
      let after: number | undefined;
      for (;;) {
        const page = unwrap(await raw.audit.list({ query: { ...query, after, limit: 1000 } }), 200);
        yield* page.data as AuditEvent[];
        if (page.meta.next_after === null) return;
        after = page.meta.next_after;
      }
    },
    /** Recomputes the chain server-side: `{ ok, checked, broken_at? }`. */
    verify: async () => unwrap(await raw.audit.verify(), 200).data,
    /** Which data events the log records: `{ action_create }` (each action's create; on by default). */
    settings: async () => unwrap(await raw.audit.getSettings(), 200).data,
    /** Turns a data event on or off (`{ action_create: true }`); needs a key with the `admin` scope. */
    updateSettings: async (body: AuditSettingsUpdate) =>
      unwrap(await raw.audit.updateSettings({ body }), 200).data,
    exportUrl,
    /** The streamed export as text: NDJSON (one event a line) or CSV with a header row. */
    export: async (format: 'ndjson' | 'csv' = 'ndjson', query: AuditQuery = {}): Promise<string> => {
      const res = await fetch(exportUrl(format, query), {
        headers: {
          ...(options.apiKey !== undefined ? { authorization: `Bearer ${options.apiKey}` } : {}),
          ...options.headers,
        },
      });
      const text = await res.text();
      if (res.status === 200) return text;
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Not JSON: the error keeps the text.
      }
      return unwrap({ status: res.status, body, headers: res.headers } as never, 200 as never);
    },
  };
}
