import { ERROR_CLASSES, type ErrorClass } from '@sched/contract';
import type { ActionSummary } from '@sched/sdk';
import { useState } from 'preact/hooks';
import { BulkRun } from '../bulk.js';
import { href, navigate, type Route } from '../router.js';
import { Empty, ErrorNote, Loading, useConsole, useLoad, When } from '../ui.js';
import { DataTable } from '../ui/table.js';

type Kind = 'retry' | 'replay';
/** What a bulk operation acts on: the failed actions of a group (a filter), or rows picked by hand (ids). */
type Target =
  | { filter: { status: 'failed'; destination_host?: string; error_class?: ErrorClass } }
  | { ids: string[] };

interface Group {
  host: string | null;
  errorClass: ErrorClass | null;
  count: number;
}

/** The listed failures grouped by destination host and the latest attempt's error class, largest group first. */
function groupsOf(rows: ActionSummary[]): Group[] {
  const groups = new Map<string, Group>();
  for (const a of rows) {
    const host = a.destination_host;
    const errorClass = a.last_attempt?.error_class ?? null;
    const key = `${host ?? ''}\u0000${errorClass ?? ''}`;
    const g = groups.get(key) ?? { host, errorClass, count: 0 };
    g.count += 1;
    groups.set(key, g);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

/**
 * Failed actions, grouped by destination host and error class: pick a group (a filter, so every failed action of
 * the group is included, not only the listed ones) or rows, then retry or replay them through a bulk operation.
 */
export function FailedInboxPanel({ route }: { route: Route }) {
  const { canWrite } = useConsole();
  const host = route.query.get('destination_host') ?? undefined;
  const asked = route.query.get('error_class');
  const errorClass = ERROR_CLASSES.find((c) => c === asked);
  const list = useLoad(
    (c) =>
      c.actions.list({
        status: 'failed',
        per_page: 100,
        ...(host ? { destination_host: host } : {}),
        ...(errorClass ? { error_class: errorClass } : {}),
      }),
    [host, errorClass],
    { live: true },
  );
  const all = useLoad((c) => c.actions.list({ status: 'failed', per_page: 100 }), [], { live: true });
  const [selected, setSelected] = useState<string[]>([]);
  const [run, setRun] = useState<{ kind: Kind; target: Target }>();
  const groupFilter = {
    status: 'failed' as const,
    ...(host ? { destination_host: host } : {}),
    ...(errorClass ? { error_class: errorClass } : {}),
  };
  const rows = list.data?.data ?? [];
  const reload = () => {
    list.reload();
    all.reload();
    setSelected([]);
  };
  return (
    <>
      <h1>Failed inbox</h1>
      <ErrorNote error={all.error} onRetry={all.reload} />
      {all.data && (
        <section aria-labelledby="groups-title">
          <h2 id="groups-title">By destination and error class</h2>
          {all.data.data.length === 0 ? (
            <p class="muted">No failed action.</p>
          ) : (
            <ul class="counts">
              <li>
                <a href={href('failed')} aria-current={!host && !errorClass ? 'true' : undefined}>
                  <span class="count">{all.data.meta.total}</span> all failed
                </a>
              </li>
              {groupsOf(all.data.data).map((g) => (
                <li key={`${g.host}-${g.errorClass}`}>
                  <a
                    href={href('failed', {
                      destination_host: g.host ?? undefined,
                      error_class: g.errorClass ?? undefined,
                    })}
                    aria-current={
                      host === (g.host ?? undefined) && errorClass === (g.errorClass ?? undefined)
                        ? 'true'
                        : undefined
                    }
                  >
                    <span class="count">{g.count}</span> {g.host ?? 'no host'} ·{' '}
                    {g.errorClass ?? 'no error class'}
                  </a>
                </li>
              ))}
            </ul>
          )}
          {all.data.meta.total > all.data.data.length && (
            <p class="muted">
              Groups count the latest {all.data.data.length} failures; a group's bulk run covers all of its
              actions.
            </p>
          )}
        </section>
      )}
      <section aria-labelledby="failed-title">
        <h2 id="failed-title">
          {host || errorClass
            ? `Failed: ${host ?? 'any host'} · ${errorClass ?? 'any error class'}`
            : 'All failed actions'}
        </h2>
        {canWrite && rows.length > 0 && (
          <div class="buttons">
            <button type="button" onClick={() => setRun({ kind: 'retry', target: { filter: groupFilter } })}>
              Retry this group
            </button>
            <button type="button" onClick={() => setRun({ kind: 'replay', target: { filter: groupFilter } })}>
              Replay this group
            </button>
            {selected.length > 0 && (
              <>
                <button type="button" onClick={() => setRun({ kind: 'retry', target: { ids: selected } })}>
                  Retry {selected.length} selected
                </button>
                <button type="button" onClick={() => setRun({ kind: 'replay', target: { ids: selected } })}>
                  Replay {selected.length} selected
                </button>
              </>
            )}
          </div>
        )}
        {run && (
          <BulkRun
            key={JSON.stringify(run)}
            title={`${run.kind === 'retry' ? 'Retry' : 'Replay'} ${'ids' in run.target ? `${run.target.ids.length} selected actions` : 'this group'}`}
            operation={run.kind}
            dryRun={(c) => c.bulkOperations.dryRun({ operation: run.kind, ...run.target })}
            start={(c) =>
              c.bulkOperations.start({ operation: run.kind, ...run.target, note: 'from the console' })
            }
            onDone={reload}
          />
        )}
        <ErrorNote error={list.error} onRetry={list.reload} />
        {!list.data && !list.error && <Loading what="failed actions" />}
        {list.data && (
          <DataTable
            label="Failed actions"
            rows={rows}
            rowName={(a) => a.name}
            selection={canWrite ? { selected, onChange: setSelected } : undefined}
            columns={[
              { label: 'Name', cell: (a) => <a href={href(`actions/${a.id}`)}>{a.name}</a> },
              { label: 'Destination', cell: (a) => a.destination_host ?? '—' },
              {
                label: 'Last attempt',
                cell: (a) => (
                  <>
                    {a.last_attempt?.status_code != null ? `HTTP ${a.last_attempt.status_code} ` : ''}
                    {a.last_attempt?.error_class ?? ''}
                  </>
                ),
              },
              { label: 'Failed', cell: (a) => <When at={a.last_attempt?.at ?? a.updated_at} /> },
            ]}
          />
        )}
        {list.data && rows.length === 0 && (
          <Empty>
            <p>
              Nothing failed here. Failures land in this inbox as they happen; meanwhile,{' '}
              <a href={href('actions')}>all actions</a>.
            </p>
          </Empty>
        )}
        {list.data && list.data.meta.total > rows.length && (
          <p class="muted">
            Showing the latest {rows.length} of {list.data.meta.total};{' '}
            <button
              type="button"
              onClick={() =>
                navigate('actions', { status: 'failed', destination_host: host, error_class: errorClass })
              }
            >
              page through them in Actions
            </button>
          </p>
        )}
      </section>
    </>
  );
}
