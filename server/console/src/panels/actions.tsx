import {
  ACTION_MODES,
  ACTION_STATES,
  ERROR_CLASSES,
  MISSED_POLICIES,
  type MissedPolicy,
} from '@sched/contract';
import type { Action, ActionListQuery, ActionSummary, FieldValue } from '@sched/sdk';
import { useState } from 'preact/hooks';
import {
  canCancelAction,
  canPauseAction,
  canReassign,
  canRemind,
  canReplayAction,
  canRescheduleAction,
  canResumeAction,
  canRunAction,
  canRetryAction,
} from '../allowed.js';
import { BulkRun } from '../bulk.js';
import { href, navigate, type Route } from '../router.js';
import {
  AnySelect,
  BackLink,
  ConfirmButton,
  ErrorNote,
  FilterForm,
  FilterText,
  Json,
  Loading,
  Ms,
  PauseLength,
  Status,
  useConsole,
  useLoad,
  When,
} from '../ui.js';
import { ListPage } from '../ui/list.js';
import { DataTable, Facts } from '../ui/table.js';
import { ReassignButton } from './approvals.js';
import { NewAction } from './new-action.js';

/** Every `GET /v1/actions` filter the console offers, as URL parameters (a view can be shared by its URL). */
const FILTERS = [
  'status',
  'mode',
  'search',
  'dedup_key',
  'recurring',
  'destination_host',
  'destination_origin',
  'last_status_code',
  'error_class',
  'failed_after',
  'failed_before',
  'created_after',
  'created_before',
  'scheduled_after',
  'scheduled_before',
] as const;
/** The time bounds, shown under "More filters": ISO 8601 with an offset, as the API takes them. */
const TIME_FILTERS = [
  ['created_after', 'Created at or after'],
  ['created_before', 'Created before'],
  ['scheduled_after', 'Scheduled at or after'],
  ['scheduled_before', 'Scheduled before'],
  ['failed_after', 'Failed at or after'],
  ['failed_before', 'Failed before'],
] as const;
/** The filters by where an action sends, with an example of each. */
const DESTINATION_FILTERS = [
  ['destination_host', 'Destination host', 'api.example.com'],
  ['destination_origin', 'Destination origin', 'https://api.example.com'],
  ['last_status_code', 'Last status code', '503 or 5xx'],
] as const;
type Filters = Partial<Record<(typeof FILTERS)[number] | 'page', string>>;

function filtersOf(query: URLSearchParams): Filters {
  const f: Filters = {};
  for (const k of [...FILTERS, 'page'] as const) {
    const v = query.get(k);
    if (v) f[k] = v;
  }
  return f;
}

function ActionFilters({ filters }: { filters: Filters }) {
  return (
    <FilterForm view="actions" label="Filter actions" names={FILTERS}>
      <label>
        Search
        <input
          type="search"
          name="search"
          defaultValue={filters.search ?? ''}
          placeholder="name or description"
        />
      </label>
      <label>
        State
        <AnySelect name="status" values={ACTION_STATES} selected={filters.status} />
      </label>
      <label>
        Mode
        <AnySelect name="mode" values={ACTION_MODES} selected={filters.mode} />
      </label>
      <FilterText name="dedup_key" label="Dedup key" value={filters.dedup_key} />
      <label>
        Recurrence
        <select name="recurring">
          <option value="">any</option>
          <option value="recurring" selected={filters.recurring === 'recurring'}>
            recurring
          </option>
          <option value="one-time" selected={filters.recurring === 'one-time'}>
            one-time
          </option>
        </select>
      </label>
      {DESTINATION_FILTERS.map(([name, label, placeholder]) => (
        <FilterText key={name} name={name} label={label} value={filters[name]} placeholder={placeholder} />
      ))}
      <label>
        Error class
        <AnySelect name="error_class" values={ERROR_CLASSES} selected={filters.error_class} />
      </label>
      <details class="more" open={TIME_FILTERS.some(([k]) => filters[k])}>
        <summary>Time filters</summary>
        {TIME_FILTERS.map(([name, label]) => (
          <FilterText
            key={name}
            name={name}
            label={label}
            value={filters[name]}
            placeholder="2026-11-25T10:00:00Z"
          />
        ))}
      </details>
    </FilterForm>
  );
}

/** What the actions list can do to its selection, with the body part each operation needs. */
const SELECTION_RUNS = [
  { operation: 'cancel', label: 'Cancel selected', extra: {} },
  { operation: 'retry', label: 'Retry selected', extra: {} },
  { operation: 'pause', label: 'Pause selected', extra: { pause: { indefinite: true } } },
] as const;
type SelectionRun = { run: (typeof SELECTION_RUNS)[number]; ids: string[] };

function lastAttempt(a: ActionSummary) {
  if (!a.last_attempt) return <span class="muted">—</span>;
  const t = a.last_attempt;
  return (
    <>
      {t.status_code !== null ? `HTTP ${t.status_code}` : ''}
      {t.error_class ? ` ${t.error_class}` : ''}
      {t.status_code === null && !t.error_class ? 'ok' : ''}{' '}
      <span class="muted">
        late <Ms ms={t.lateness_ms} />
      </span>
    </>
  );
}

/** The name, and the replay relation both ways where this page shows it: a replay names its original. */
function nameCell(a: ActionSummary, rows: readonly ActionSummary[]) {
  const replays = rows.filter((r) => r.replay_of === a.id);
  return (
    <>
      <a href={href(`actions/${a.id}`)}>{a.name}</a>
      {a.replay_of && (
        <div class="muted">
          replay of <a href={href(`actions/${a.replay_of}`)}>{a.replay_of.slice(0, 8)}</a>
        </div>
      )}
      {replays.map((r) => (
        <div key={r.id} class="muted">
          replayed as <a href={href(`actions/${r.id}`)}>{r.id.slice(0, 8)}</a>
        </div>
      ))}
    </>
  );
}

function ActionList({ route }: { route: Route }) {
  const { canWrite } = useConsole();
  const filters = filtersOf(route.query);
  const key = JSON.stringify(filters);
  const [selected, setSelected] = useState<string[]>([]);
  const [run, setRun] = useState<SelectionRun>();
  const list = useLoad(
    (c) =>
      c.actions.list({
        ...(filters as Omit<ActionListQuery, 'page'>),
        page: Number(filters.page ?? 1),
        per_page: 25,
      } as ActionListQuery),
    [key],
    { live: true },
  );
  return (
    <>
      <h1>
        Actions
        {canWrite && (
          <a class="button primary" href={href('actions/new')}>
            New action
          </a>
        )}
      </h1>
      {/* Keyed by the URL so the fields show the filters after back and forward. */}
      <ActionFilters key={key} filters={filters} />
      {canWrite && selected.length > 0 && (
        <fieldset class="buttons selection">
          <legend class="sr-only">Selected actions</legend>
          <span>{selected.length} selected</span>
          {SELECTION_RUNS.map((r) => (
            <button key={r.operation} type="button" onClick={() => setRun({ run: r, ids: selected })}>
              {r.label}
            </button>
          ))}
          <button
            type="button"
            onClick={() => {
              setSelected([]);
              setRun(undefined);
            }}
          >
            Clear selection
          </button>
        </fieldset>
      )}
      {run && (
        <BulkRun
          key={JSON.stringify(run)}
          title={`${run.run.label.replace(' selected', '')} ${run.ids.length} selected action${run.ids.length === 1 ? '' : 's'}`}
          operation={run.run.operation}
          dryRun={(c) =>
            c.bulkOperations.dryRun({ operation: run.run.operation, ids: run.ids, ...run.run.extra })
          }
          start={(c) =>
            c.bulkOperations.start({
              operation: run.run.operation,
              ids: run.ids,
              ...run.run.extra,
              note: 'from the console',
            })
          }
          onDone={() => {
            setSelected([]);
            list.reload();
          }}
        />
      )}
      <ListPage
        list={list}
        noun="actions"
        view="actions"
        query={filters}
        empty={
          FILTERS.some((k) => filters[k]) ? (
            <p>
              No action matches these filters. <a href={href('actions')}>Clear the filters</a> or widen them.
            </p>
          ) : (
            <p>
              No action yet. Schedule one with <code>sched actions create</code>, the SDK's{' '}
              <code>actions.create</code> or <code>POST /v1/actions</code>; it shows here within seconds.
            </p>
          )
        }
      >
        {(rows) => (
          <DataTable
            label="Actions"
            rows={rows}
            rowName={(a) => a.name}
            selection={canWrite ? { selected, onChange: setSelected } : undefined}
            columns={[
              { label: 'Name', cell: (a) => nameCell(a, rows) },
              { label: 'State', cell: (a) => <Status status={a.status} /> },
              { label: 'Mode', cell: (a) => a.mode },
              { label: 'Destination', cell: (a) => a.destination_host ?? <span class="muted">—</span> },
              { label: 'Last attempt', cell: lastAttempt },
              { label: 'Scheduled for', cell: (a) => <When at={a.scheduled_for} /> },
              { label: 'Created', cell: (a) => <When at={a.created_at} /> },
            ]}
          />
        )}
      </ListPage>
    </>
  );
}

/** A recipient's typed answer (`recipients[].values`), as `name: value` pairs. */
function AnswerValues({ values }: { values: Record<string, FieldValue> | null }) {
  if (!values || Object.keys(values).length === 0) return null;
  return (
    <dl class="answer-values">
      {Object.entries(values).map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>
            <code>{String(value)}</code>
          </dd>
        </div>
      ))}
    </dl>
  );
}

function Attempts({ action }: { action: Action }) {
  if (action.delivery_attempts.length === 0) return <p class="muted">No attempt yet.</p>;
  return (
    <ol class="timeline" aria-label="Delivery attempts">
      {action.delivery_attempts.map((t) => (
        <li key={t.id} class={`outcome-${t.outcome}`}>
          <h3>
            Attempt {t.attempt_number}: <Status status={t.outcome} />{' '}
            {t.status_code !== null && <span class="code">HTTP {t.status_code}</span>}
          </h3>
          <Facts
            facts={[
              { label: 'Started', value: <When at={t.started_at} /> },
              { label: 'Lateness', value: <Ms ms={t.lateness_ms} /> },
              { label: 'Duration', value: <Ms ms={t.duration_ms} /> },
              { label: 'Error class', value: t.error_class, show: Boolean(t.error_class), error: true },
              { label: 'Error', value: t.error, show: Boolean(t.error), error: true },
            ]}
          />
          {t.response_excerpt !== null && (
            <details>
              <summary>Response{t.response_truncated ? ' (first 2 KiB)' : ''}</summary>
              <pre>{t.response_excerpt}</pre>
            </details>
          )}
        </li>
      ))}
    </ol>
  );
}

function ActionDetail({ id }: { id: string }) {
  const { client, canWrite } = useConsole();
  // Live: an executing action or a new replay moves on by itself.
  const loaded = useLoad((c) => c.actions.get(id), [id], { live: true });
  const [pauseHours, setPauseHours] = useState(0);
  const [missed, setMissed] = useState<MissedPolicy>('run_once');
  const [moveBy, setMoveBy] = useState('1h');
  const [ignoreWindow, setIgnoreWindow] = useState(false);
  const a = loaded.data;
  if (loaded.error)
    return (
      <>
        <BackLink view="actions" text="All actions" />
        <ErrorNote error={loaded.error} onRetry={loaded.reload} />
      </>
    );
  if (!a) return <Loading what="the action" />;
  const definition = {
    request: a.request,
    scheduled_for: a.scheduled_for,
    timezone: a.timezone,
    max_attempts: a.max_attempts,
    retry_strategy: a.retry_strategy,
    signed: a.signed,
    callback_url: a.callback_url,
    idempotency_key: a.idempotency_key,
    dedup_keys: a.dedup_keys,
    coordination: a.coordination,
    recurrence: a.recurrence,
    delivery_window: a.delivery_window,
    gate: a.gate,
  };
  return (
    <>
      <BackLink view="actions" text="All actions" />
      <h1>
        {a.name} <Status status={a.status} />
      </h1>
      {canWrite && (
        <div class="buttons">
          {canCancelAction(a) && (
            <ConfirmButton
              label="Cancel action"
              title={`Cancel “${a.name}”?`}
              danger
              onConfirm={() => client.actions.cancel(a.id)}
              onDone={loaded.reload}
            >
              It will not run. A cancelled action cannot be resumed.
            </ConfirmButton>
          )}
          {canPauseAction(a) && (
            <ConfirmButton
              label="Pause"
              title={`Pause “${a.name}”?`}
              onConfirm={() =>
                client.actions.pause(a.id, pauseHours ? { duration: `${pauseHours}h` } : { indefinite: true })
              }
              onDone={loaded.reload}
            >
              <p>Nothing is sent while it is paused; an approval's timeout and escalation clocks stop.</p>
              <PauseLength hours={pauseHours} onChange={setPauseHours} />
            </ConfirmButton>
          )}
          {canResumeAction(a) && (
            <ConfirmButton
              label="Resume"
              title={`Resume “${a.name}”?`}
              onConfirm={() => client.actions.resume(a.id, { missed })}
              onDone={loaded.reload}
            >
              <p>It goes back on its schedule.</p>
              <label>
                What passed while paused{' '}
                <select value={missed} onChange={(e) => setMissed(e.currentTarget.value as MissedPolicy)}>
                  {MISSED_POLICIES.map((m) => (
                    <option key={m} value={m}>
                      {m === 'run_once' ? 'runs once now' : 'is skipped'}
                    </option>
                  ))}
                </select>
              </label>
            </ConfirmButton>
          )}
          {canRescheduleAction(a) && (
            <ConfirmButton
              label="Reschedule"
              title={`Reschedule “${a.name}”?`}
              onConfirm={() => client.actions.reschedule(a.id, { schedule: { wait: moveBy } })}
              onDone={loaded.reload}
            >
              <p>It becomes due after the wait, counted from now; its delivery window applies.</p>
              <label>
                Due in{' '}
                <input
                  value={moveBy}
                  size={6}
                  pattern="\d+[smhdw]"
                  onInput={(e) => setMoveBy(e.currentTarget.value)}
                />{' '}
                (30m, 2h, 1d)
              </label>
            </ConfirmButton>
          )}
          {canRunAction(a) && (
            <ConfirmButton
              label="Run now"
              title={`Run “${a.name}” now?`}
              onConfirm={() => client.actions.run(a.id, { ignore_window: ignoreWindow })}
              onDone={loaded.reload}
            >
              <p>
                It is sent at once
                {a.delivery_window ? ', or at the next opening of its delivery window' : ''}; a series goes on
                with its next occurrence after it.
              </p>
              {a.delivery_window && (
                <label>
                  <input
                    type="checkbox"
                    checked={ignoreWindow}
                    onChange={(e) => setIgnoreWindow(e.currentTarget.checked)}
                  />{' '}
                  Send now even if its window is closed
                </label>
              )}
            </ConfirmButton>
          )}
          {canReplayAction(a) && (
            <ConfirmButton
              label="Replay"
              title={`Replay “${a.name}”?`}
              onConfirm={async () => navigate(`actions/${(await client.actions.replay(a.id)).id}`)}
            >
              A new action with the same definition is created, due now, through the same checks as any new
              action. This one stays as it is.
            </ConfirmButton>
          )}
          {canRemind(a) && (
            <ConfirmButton
              label="Remind"
              title={`Remind the recipients of “${a.name}”?`}
              onConfirm={() => client.remind(a.id)}
              onDone={loaded.reload}
            >
              The approval message goes again, now, to who has not answered, with new links (earlier links
              keep working). It does not count against the gate's reminder limit.
            </ConfirmButton>
          )}
          {canRetryAction(a) && (
            <ConfirmButton
              label="Retry now"
              title={`Retry “${a.name}”?`}
              onConfirm={() => client.actions.retry(a.id)}
              onDone={loaded.reload}
            >
              A new delivery cycle of up to {a.max_attempts} attempts starts now.
            </ConfirmButton>
          )}
        </div>
      )}
      <Facts
        facts={[
          { label: 'Mode', value: a.mode },
          { label: 'Scheduled for', value: <When at={a.scheduled_for} /> },
          { label: 'Next attempt', value: <When at={a.next_attempt_at} /> },
          {
            label: 'Deferred by its window',
            value: a.deferred_by_window && (
              <>
                due <When at={a.deferred_by_window.from} />, moved to <When at={a.deferred_by_window.to} />
              </>
            ),
            show: Boolean(a.deferred_by_window),
          },
          { label: 'Attempts', value: `${a.attempt_count} of ${a.max_attempts}` },
          { label: 'Last error', value: a.last_error, show: Boolean(a.last_error), error: true },
          {
            label: 'Replay of',
            value: a.replay_of && <a href={href(`actions/${a.replay_of}`)}>{a.replay_of}</a>,
            show: Boolean(a.replay_of),
          },
          {
            label: 'Replays',
            value: a.replays.map((id) => (
              <div key={id}>
                <a href={href(`actions/${id}`)}>{id}</a>
              </div>
            )),
            show: a.replays.length > 0,
          },
          { label: 'Id', value: <code>{a.id}</code> },
        ]}
      />
      {a.description && <p>{a.description}</p>}
      <section aria-labelledby="attempts-title">
        <h2 id="attempts-title">Attempts</h2>
        <Attempts action={a} />
      </section>
      {a.mode === 'approval' && (
        <section aria-labelledby="recipients-title">
          <h2 id="recipients-title">Recipients</h2>
          <DataTable
            label="Recipients"
            rows={a.recipients}
            columns={[
              {
                label: 'Recipient',
                cell: (r) => (
                  <>
                    {r.display_name} <span class="muted">{r.email}</span>
                    {r.reassigned_from && (
                      <div class="muted">
                        took over from{' '}
                        {a.recipients.find((x) => x.id === r.reassigned_from)?.display_name ?? 'another'}
                      </div>
                    )}
                  </>
                ),
              },
              { label: 'Role', cell: (r) => r.role },
              { label: 'Channels', cell: (r) => r.channels.join(', ') },
              { label: 'State', cell: (r) => <Status status={r.status} /> },
              {
                label: 'Answered',
                cell: (r) => (
                  <>
                    <When at={r.responded_at} />
                    {r.response_comment && <q>{r.response_comment}</q>}
                    <AnswerValues values={r.values} />
                  </>
                ),
              },
              canWrite && {
                label: 'Changes',
                hiddenLabel: true,
                cell: (r) =>
                  canReassign(a, r) && (
                    <ReassignButton
                      actionId={a.id}
                      actionName={a.name}
                      recipient={r}
                      onDone={loaded.reload}
                    />
                  ),
              },
            ]}
          />
          <h2>Reminder events</h2>
          {a.reminder_events.length === 0 ? (
            <p class="muted">None yet.</p>
          ) : (
            <ol class="timeline" aria-label="Reminder events">
              {a.reminder_events.map((e) => (
                <li key={e.id}>
                  <Status status={e.event_type} /> <When at={e.created_at} />{' '}
                  {e.actor_email && <span>by {e.actor_email}</span>}{' '}
                  {e.channel && <span class="muted">{ANSWER_CHANNEL_LABELS[e.channel]}</span>}{' '}
                  {e.notes && <q>{e.notes}</q>}
                </li>
              ))}
            </ol>
          )}
        </section>
      )}
      <section aria-labelledby="definition-title">
        <h2 id="definition-title">Definition</h2>
        <p class="muted">Credentials in headers are masked as the API masks them for this key.</p>
        <Json value={definition} label="The action's definition" />
      </section>
    </>
  );
}

/** Where an answer came from, as the timeline says it. */
const ANSWER_CHANNEL_LABELS: Record<NonNullable<Action['reminder_events'][number]['channel']>, string> = {
  page: 'on the page',
  slack: 'in Slack',
  email_reply: 'by email reply',
  push: 'from a push notification',
};

export function ActionsPanel({ route }: { route: Route }) {
  const { canWrite } = useConsole();
  const id = route.path.split('/')[1];
  // A read-scope session gets the list: the form would only end in a 403.
  if (id === 'new') return canWrite ? <NewAction /> : <ActionList route={route} />;
  return id ? <ActionDetail id={id} /> : <ActionList route={route} />;
}
