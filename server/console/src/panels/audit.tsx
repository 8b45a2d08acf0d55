import { AUDIT_ACTOR_TYPES, type AuditVerification } from '@sched/contract';
import type { AuditEvent, AuditQuery } from '@sched/sdk';
import { useState } from 'preact/hooks';
import { href, navigate, type Route } from '../router.js';
import {
  AnySelect,
  ErrorNote,
  FilterForm,
  FilterText,
  Json,
  useConsole,
  useLoad,
  useRequest,
  When,
  WhenLoaded,
  words,
} from '../ui.js';
import { DataTable } from '../ui/table.js';

const PER_PAGE = 50;
/** The text filters of `GET /v1/audit-events`, in the URL; `after` is the keyset cursor of the page. */
const TEXT_FILTERS = [
  ['action', 'Action', 'approval.* or action.cancel'],
  ['resource_id', 'Resource id', 'an action id, a host…'],
  ['from', 'At or after', '2026-11-25T10:00:00Z'],
  ['to', 'Before', '2026-11-26T00:00:00Z'],
] as const;

function filtersOf(query: URLSearchParams): AuditQuery {
  const f: AuditQuery = {};
  for (const [k] of TEXT_FILTERS) {
    const v = query.get(k);
    if (v) f[k] = v;
  }
  const actor = AUDIT_ACTOR_TYPES.find((t) => t === query.get('actor_type'));
  if (actor) f.actor_type = actor;
  return f;
}

/** Where a resource of the log is shown in the console, when it is. */
function resourceHref(r: AuditEvent['resource']): string | undefined {
  const views: Record<string, string> = {
    action: `actions/${r.id}`,
    chain: `chains/${r.id}`,
    template: `templates/${r.id}`,
    destination: `destinations/${encodeURIComponent(r.id)}`,
    bulk_operation: `bulk/${r.id}`,
  };
  const view = views[r.type];
  return view ? href(view) : undefined;
}

/** An event's resource: its type and id, the id a link where the console has a view of it. */
function ResourceLink({ resource }: { resource: AuditEvent['resource'] }) {
  const target = resourceHref(resource);
  const id = <code>{resource.id}</code>;
  return (
    <>
      {resource.type} {target ? <a href={target}>{id}</a> : id}
    </>
  );
}

function Verify() {
  const { client } = useConsole();
  const [result, setResult] = useState<AuditVerification>();
  const { busy, error, run } = useRequest();
  const verify = () => {
    setResult(undefined);
    return run(async () => setResult(await client.audit.verify()));
  };
  return (
    <section aria-labelledby="verify-title">
      <h2 id="verify-title">Integrity</h2>
      <p class="muted">
        Each event holds the hash of the one before it: recomputing the chain finds any event changed, removed
        or reordered.
      </p>
      <button type="button" onClick={verify} disabled={busy}>
        Verify the chain
      </button>
      <div role="status" aria-live="polite" class="verify-result">
        {busy && 'Verifying…'}
        {result?.ok && (
          <p class="note">
            <strong>Intact:</strong> {result.checked} events checked, every hash holds.
          </p>
        )}
        {result && !result.ok && (
          <p class="note error">
            <strong>Broken</strong> at event {result.broken_at} ({result.checked} checked): it or one before
            it was changed, removed or reordered.
          </p>
        )}
      </div>
      <ErrorNote error={error} />
    </section>
  );
}

/**
 * The account's audit log (`GET /v1/audit-events`): filters in the URL, keyset pages oldest first, each event's
 * details; the chain verified on demand, and the filtered log exported as NDJSON or CSV.
 */
export function AuditPanel({ route }: { route: Route }) {
  const { client } = useConsole();
  const filters = filtersOf(route.query);
  const after = Number(route.query.get('after') ?? 0) || undefined;
  const key = JSON.stringify([filters, after]);
  const list = useLoad((c) => c.audit.list({ ...filters, after, limit: PER_PAGE }), [key]);
  return (
    <>
      <h1>Audit log</h1>
      <FilterForm
        key={key}
        view="audit"
        label="Filter the audit log"
        names={[...TEXT_FILTERS.map(([name]) => name), 'actor_type']}
      >
        {TEXT_FILTERS.map(([name, label, placeholder]) => (
          <FilterText key={name} name={name} label={label} value={filters[name]} placeholder={placeholder} />
        ))}
        <label>
          Actor
          <AnySelect name="actor_type" values={AUDIT_ACTOR_TYPES} selected={filters.actor_type} />
        </label>
      </FilterForm>
      <p>
        Export what these filters match:{' '}
        <a href={client.audit.exportUrl('ndjson', filters)} download>
          NDJSON
        </a>{' '}
        ·{' '}
        <a href={client.audit.exportUrl('csv', filters)} download>
          CSV
        </a>
      </p>
      <WhenLoaded loaded={list} what="audit events">
        {({ data: events, meta }) => (
          <>
            <DataTable
              rows={events}
              caption={`Oldest first${after ? `, after event ${after}` : ''}`}
              columns={[
                { label: '#', cell: (e) => e.seq },
                { label: 'When', cell: (e) => <When at={e.at} /> },
                { label: 'Action', cell: (e) => <code>{e.action}</code> },
                {
                  label: 'Actor',
                  cell: (e) => (
                    <>
                      {words(e.actor.type)} <span class="muted">{e.actor.email ?? e.actor.id}</span>
                      {e.channel && <span class="muted"> via {e.channel}</span>}
                    </>
                  ),
                },
                { label: 'Resource', cell: (e) => <ResourceLink resource={e.resource} /> },
                {
                  label: 'Details',
                  cell: (e) => (
                    <details>
                      <summary>Details of event {e.seq}</summary>
                      <Json
                        value={{
                          details: e.details,
                          ip: e.ip,
                          user_agent: e.user_agent,
                          request_id: e.request_id,
                          hash: e.hash,
                          prev_hash: e.prev_hash,
                        }}
                        label={`Details of event ${e.seq}`}
                      />
                    </details>
                  ),
                },
              ]}
            />
            {events.length === 0 && <p class="muted">No event matches these filters.</p>}
            <nav class="pager" aria-label="Audit log pages">
              <span>
                {events.length} event{events.length === 1 ? '' : 's'}
              </span>
              {after && <a href={href('audit', { ...filters })}>First page</a>}
              {meta.next_after !== null && (
                <button
                  type="button"
                  onClick={() => navigate('audit', { ...filters, after: String(meta.next_after) })}
                >
                  Next page
                </button>
              )}
            </nav>
          </>
        )}
      </WhenLoaded>
      <Verify />
    </>
  );
}
