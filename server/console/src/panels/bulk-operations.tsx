import { BULK_OPERATION_STATES } from '@sched/contract';
import type { BulkOperation } from '@sched/sdk';
import { useEffect } from 'preact/hooks';
import { BulkProgress, DONE } from '../bulk.js';
import { href, type Route } from '../router.js';
import { ConfirmButton, DetailPage, Json, StateFilter, Status, useConsole, useLoad, When } from '../ui.js';
import { ListPage, pageOf } from '../ui/list.js';
import { DataTable, Facts } from '../ui/table.js';

/** How often a running operation is read again while it is on screen. */
const POLL_MS = 1000;

/** What an operation acts on, in a few words: its filter's fields, or the actions picked by id. */
function targetOf(op: BulkOperation): string {
  if (!op.filter) return 'actions picked by id';
  const parts = Object.entries(op.filter).map(
    ([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`,
  );
  return parts.length > 0 ? parts.join(', ') : 'every action';
}

/** Reads the operation again every second while it runs, so its progress moves on screen. */
function usePolling(op: BulkOperation | undefined, reload: () => void) {
  useEffect(() => {
    if (op?.status !== 'running') return;
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [op]);
}

function StopButton({ op, onDone }: { op: BulkOperation; onDone: () => void }) {
  const { client, canWrite } = useConsole();
  if (!canWrite || op.status !== 'running') return null;
  return (
    <ConfirmButton
      label="Stop"
      context={`the ${op.operation} operation`}
      title={`Stop this ${op.operation} operation?`}
      danger
      onConfirm={() => client.bulkOperations.stop(op.id)}
      onDone={onDone}
    >
      The batch in progress finishes; the {op.matched - op.processed} actions not reached yet are left as they
      are. What is done stays done.
    </ConfirmButton>
  );
}

function OperationList({ route }: { route: Route }) {
  const asked = route.query.get('status');
  const status = BULK_OPERATION_STATES.find((s) => s === asked);
  const page = pageOf(route);
  const list = useLoad(
    (c) => c.bulkOperations.list({ ...(status ? { status } : {}), page, per_page: 25 }),
    [status, page],
  );
  const running = list.data?.data.find((op) => op.status === 'running');
  usePolling(running, list.reload);
  return (
    <>
      <h1>Bulk operations</h1>
      <p class="muted">
        Cancel, retry, replay, pause or resume many actions at once: started from the failed inbox, a
        destination's recovery, the API or the CLI. Newest first.
      </p>
      <StateFilter
        view="bulk"
        label="Filter bulk operations"
        states={BULK_OPERATION_STATES}
        selected={status}
      />
      <ListPage
        list={list}
        noun="bulk operations"
        view="bulk"
        query={{ status }}
        empty={
          <p>
            No bulk operation yet (a dry run starts none). Select actions in{' '}
            <a href={href('actions')}>Actions</a> or a group in the <a href={href('failed')}>failed inbox</a>{' '}
            to start one.
          </p>
        }
      >
        {(rows) => (
          <DataTable
            label="Bulk operations"
            rows={rows}
            columns={[
              {
                label: 'Operation',
                cell: (op) => (
                  <>
                    <a href={href(`bulk/${op.id}`)}>{op.operation}</a>
                    {op.note && <div class="muted">{op.note}</div>}
                  </>
                ),
              },
              { label: 'State', cell: (op) => <Status status={op.status} /> },
              {
                label: 'Progress',
                cell: (op) => (
                  <>
                    {op.processed} of {op.matched}: {op.affected} {DONE[op.operation]}, {op.skipped} skipped
                    {op.failed > 0 ? `, ${op.failed} failed` : ''}
                  </>
                ),
              },
              { label: 'Acting on', cell: targetOf },
              { label: 'Started', cell: (op) => <When at={op.created_at} /> },
            ]}
          />
        )}
      </ListPage>
    </>
  );
}

function OperationDetail({ id }: { id: string }) {
  const loaded = useLoad((c) => c.bulkOperations.get(id), [id]);
  const op = loaded.data;
  usePolling(op, loaded.reload);
  return (
    <DetailPage
      back={{ view: 'bulk', text: 'All bulk operations' }}
      loaded={loaded}
      what="the bulk operation"
      name={(op) => `${op.operation[0]!.toUpperCase()}${op.operation.slice(1)} of ${op.matched} actions`}
      state={(op) => op.status}
    >
      {(op) => (
        <>
          <div class="buttons">
            <StopButton op={op} onDone={loaded.reload} />
          </div>
          <section class="bulk" aria-label="Progress">
            <BulkProgress op={op} />
          </section>
          <Facts
            facts={[
              { label: 'Matched', value: op.matched },
              { label: 'Processed', value: op.processed },
              {
                label: DONE[op.operation][0]!.toUpperCase() + DONE[op.operation].slice(1),
                value: op.affected,
              },
              { label: 'Skipped (no longer eligible)', value: op.skipped },
              { label: 'Failed', value: op.failed },
              { label: 'Started', value: <When at={op.created_at} /> },
              { label: 'Ended', value: <When at={op.finished_at} /> },
              { label: 'Note', value: op.note, show: Boolean(op.note) },
            ]}
          />
          <h2>Acting on</h2>
          {op.filter ? (
            <>
              <p>
                The actions this filter matched when it started:{' '}
                <a
                  href={href(
                    'actions',
                    Object.fromEntries(Object.entries(op.filter).map(([k, v]) => [k, String(v)])),
                  )}
                >
                  the same filter in Actions
                </a>
              </p>
              <Json value={op.filter} label="The operation's filter" />
            </>
          ) : (
            <p>Actions picked by id.</p>
          )}
        </>
      )}
    </DetailPage>
  );
}

export function BulkOperationsPanel({ route }: { route: Route }) {
  const id = route.path.split('/')[1];
  return id ? <OperationDetail id={id} /> : <OperationList route={route} />;
}
