import { FLOW_PERIODS } from '@sched/contract';
import type { BulkDryRun, BulkOperation, Destination, DestinationUpdate } from '@sched/sdk';
import { useState } from 'preact/hooks';
import { canEnableDestination } from '../allowed.js';
import { BulkRun } from '../bulk.js';
import { href, type Route } from '../router.js';
import {
  aboutIf,
  ConfirmButton,
  DetailPage,
  ErrorNote,
  Ms,
  PauseLength,
  Status,
  useConsole,
  useLoad,
  useRequest,
  When,
  WhenLoaded,
  words,
} from '../ui.js';
import { Pager, pageOf } from '../ui/list.js';
import { DataTable, Facts } from '../ui/table.js';
import { TestSend } from './destination-test.js';

function DestinationList({ route }: { route: Route }) {
  const page = pageOf(route);
  const list = useLoad((c) => c.destinations.listPage({ page }), [page]);
  return (
    <>
      <h1>Destinations</h1>
      <p class="muted">
        Every origin (scheme, host and port) the account's actions send to, or that has settings of its own.
        Open one for its flow control, circuit, pause and recovery.
      </p>
      {/* Destinations come with the actions to them: an empty first page has nothing to page through. */}
      <WhenLoaded loaded={list} what="destinations">
        {({ data, meta }) =>
          data.length === 0 && page === 1 ? (
            <p class="muted">No destination yet: they appear with the first action to an origin.</p>
          ) : (
            <>
              <DataTable
                rows={data}
                rowKey={(d) => d.origin}
                columns={[
                  {
                    label: 'Origin',
                    cell: (d) => (
                      <>
                        <a href={href(`destinations/${encodeURIComponent(d.origin)}`)}>
                          <code>{d.origin}</code>
                        </a>
                        {d.configured && <span class="muted"> · own settings</span>}
                      </>
                    ),
                  },
                  { label: 'Host', cell: (d) => <code>{d.host}</code> },
                  { label: 'Deliveries', cell: (d) => <Status status={d.paused ? 'paused' : 'flowing'} /> },
                  { label: 'Circuit', cell: (d) => <Status status={d.circuit_state} /> },
                  { label: 'Actions', cell: (d) => `${aboutIf(d.counts_exact === false)}${d.actions}` },
                  {
                    label: 'Scheduled or held',
                    cell: (d) => `${aboutIf(d.counts_exact === false)}${d.scheduled}`,
                  },
                  { label: 'In flight', cell: (d) => d.in_flight },
                  {
                    label: 'Failed',
                    cell: (d) => {
                      const failed = `${aboutIf(d.counts_exact === false)}${d.failed}`;
                      return d.failed > 0 ? (
                        <a href={href('failed', { destination_host: d.host })}>{failed}</a>
                      ) : (
                        failed
                      );
                    },
                  },
                ]}
              />
              <Pager noun="destinations" meta={meta} view="destinations" />
            </>
          )
        }
      </WhenLoaded>
    </>
  );
}

/** A number field's value, or undefined when left empty. */
function numberOf(data: FormData, name: string): number | undefined {
  const v = String(data.get(name) ?? '').trim();
  return v === '' ? undefined : Number(v);
}
function textOf(data: FormData, name: string): string | undefined {
  const v = String(data.get(name) ?? '').trim();
  return v === '' ? undefined : v;
}

/** Flow settings as one comparable value (the period counts only with a rate, and defaults to 1s). */
const flowKey = (f: Destination['flow']) =>
  f ? `${f.rate ?? ''}/${f.rate !== undefined ? (f.period ?? '1s') : ''}/${f.parallelism ?? ''}` : '';

/**
 * The `PUT` body of the settings form: a part only when the form changed it (a part left out keeps its value, so a
 * host that only gets a rate does not also get circuit settings of its own); no flow limit at all is `flow: null`.
 */
function updateOf(d: Destination, data: FormData): DestinationUpdate {
  const body: DestinationUpdate = {};
  const rate = numberOf(data, 'rate');
  const parallelism = numberOf(data, 'parallelism');
  const period = FLOW_PERIODS.find((p) => p === data.get('period')) ?? '1s';
  const flow =
    rate === undefined && parallelism === undefined
      ? null
      : {
          ...(rate !== undefined ? { rate, period } : {}),
          ...(parallelism !== undefined ? { parallelism } : {}),
        };
  if (flowKey(flow) !== flowKey(d.flow)) body.flow = flow;
  const circuit = {
    enabled: data.get('enabled') === 'on',
    min_requests: numberOf(data, 'min_requests') ?? d.circuit.min_requests,
    window: textOf(data, 'window') ?? d.circuit.window,
    failure_rate: numberOf(data, 'failure_rate') ?? d.circuit.failure_rate,
    open_for: textOf(data, 'open_for') ?? d.circuit.open_for,
    disable_after: textOf(data, 'disable_after') ?? d.circuit.disable_after,
  };
  if ((Object.keys(circuit) as (keyof typeof circuit)[]).some((k) => circuit[k] !== d.circuit[k]))
    body.circuit = circuit;
  return body;
}

/** `PUT /v1/destinations/{origin}`: flow control (empty fields: no limit) and the circuit's settings. */
function SettingsForm({ d, onSaved }: { d: Destination; onSaved: (d: Destination) => void }) {
  const { client } = useConsole();
  const { busy, error, run } = useRequest();
  const [saved, setSaved] = useState(false);
  const submit = (e: Event) => {
    e.preventDefault();
    const body = updateOf(d, new FormData(e.currentTarget as HTMLFormElement));
    setSaved(false);
    return run(async () => {
      onSaved(await client.destinations.update(d.origin, body));
      setSaved(true);
    });
  };
  const c = d.circuit;
  return (
    <form class="settings-form" onSubmit={submit} aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <fieldset class="filters">
        <legend>Flow control (empty: no limit)</legend>
        <label>
          At most
          <input
            name="rate"
            type="number"
            min={1}
            max={1_000_000}
            defaultValue={d.flow?.rate?.toString() ?? ''}
          />
        </label>
        <label>
          requests per
          <select name="period">
            {FLOW_PERIODS.map((p) => (
              <option key={p} value={p} selected={p === (d.flow?.period ?? '1s')}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label>
          In flight at once
          <input
            name="parallelism"
            type="number"
            min={1}
            max={10_000}
            defaultValue={d.flow?.parallelism?.toString() ?? ''}
          />
        </label>
      </fieldset>
      <fieldset class="filters">
        <legend>Circuit breaker</legend>
        <label class="inline">
          <input name="enabled" type="checkbox" defaultChecked={c.enabled} /> Enabled
        </label>
        <label>
          Opens at failure rate
          <input
            name="failure_rate"
            type="number"
            step="0.01"
            min={0.01}
            max={1}
            defaultValue={String(c.failure_rate)}
          />
        </label>
        <label>
          over at least (requests)
          <input name="min_requests" type="number" min={1} defaultValue={String(c.min_requests)} />
        </label>
        <label>
          in a window of
          <input name="window" defaultValue={c.window} />
        </label>
        <label>
          Stays open for
          <input name="open_for" defaultValue={c.open_for} />
        </label>
        <label>
          Disabled after
          <input name="disable_after" defaultValue={c.disable_after} />
        </label>
      </fieldset>
      <ErrorNote error={error} />
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy}>
          Save settings
        </button>
        <span role="status" class="muted">
          {saved ? 'Saved.' : ''}
        </span>
      </div>
    </form>
  );
}

/** How far back a recovery looks for failures, as the recover form offers it. */
const RECOVER_SINCE = [
  { value: '1', label: 'the last hour' },
  { value: '6', label: 'the last 6 hours' },
  { value: '24', label: 'the last 24 hours' },
  { value: '168', label: 'the last 7 days' },
];

const dryRunOf = (r: BulkDryRun | BulkOperation): BulkDryRun => {
  if ('dry_run' in r) return r;
  throw new Error('the service started an operation where a dry run was asked for');
};
const operationOf = (r: BulkDryRun | BulkOperation): BulkOperation => {
  if (!('dry_run' in r)) return r;
  throw new Error('the service answered a dry run where the operation was asked for');
};

/** `POST /v1/destinations/{origin}/recover`: a bulk retry of what failed since a time, its dry run always shown first. */
function Recover({ origin, onDone }: { origin: string; onDone: () => void }) {
  const [hours, setHours] = useState('24');
  const [since, setSince] = useState<string>();
  return (
    <section aria-labelledby="recover-title">
      <h2 id="recover-title">Recover</h2>
      <form
        class="filters"
        aria-label="Recover failed deliveries"
        onSubmit={(e) => {
          e.preventDefault();
          setSince(new Date(Date.now() - Number(hours) * 3_600_000).toISOString());
        }}
      >
        <label>
          Retry the actions to this origin that failed in
          <select value={hours} onChange={(e) => setHours(e.currentTarget.value)}>
            {RECOVER_SINCE.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Count what a recovery retries</button>
      </form>
      {since && (
        <BulkRun
          key={since}
          title={`Recover ${origin}: failed since ${new Date(since).toLocaleString()}`}
          operation="retry"
          dryRun={async (c) => dryRunOf(await c.destinations.recover(origin, { since, dry_run: true }))}
          start={async (c) => operationOf(await c.destinations.recover(origin, { since, dry_run: false }))}
          onDone={onDone}
        />
      )}
    </section>
  );
}

/** One destination, named in the URL by its origin (or a bare host: its https origin). */
function DestinationDetail({ name }: { name: string }) {
  const { client, canWrite } = useConsole();
  const loaded = useLoad((c) => c.destinations.get(name), [name]);
  const [shown, setShown] = useState<Destination>();
  const [pauseHours, setPauseHours] = useState(0);
  const [note, setNote] = useState('');
  const d = shown && shown.origin === loaded.data?.origin ? shown : loaded.data;
  const reload = () => {
    setShown(undefined);
    loaded.reload();
  };
  return (
    <DetailPage
      back={{ view: 'destinations', text: 'All destinations' }}
      loaded={loaded}
      data={d}
      what="the destination"
      name={(d) => <code>{d.origin}</code>}
      state={(d) => (d.paused ? 'paused' : 'flowing')}
    >
      {(d) => (
        <>
          {canWrite && (
            <div class="buttons">
              {canEnableDestination(d) && (
                <ConfirmButton
                  label="Enable"
                  title={`Close the circuit of ${d.origin}?`}
                  onConfirm={async () => setShown(await client.destinations.enable(d.origin))}
                >
                  Its circuit is {words(d.circuit.state)}. Deliveries go out again at once, the {d.waiting}{' '}
                  held ones too (within the flow control). Should the receiver still fail, the breaker opens
                  again.
                </ConfirmButton>
              )}
              {d.paused ? (
                <ConfirmButton
                  label="Resume deliveries"
                  title={`Resume deliveries to ${d.origin}?`}
                  onConfirm={async () => setShown(await client.destinations.resume(d.origin))}
                >
                  The {d.waiting} held deliveries go out at once, within the origin's flow control.
                </ConfirmButton>
              ) : (
                <ConfirmButton
                  label="Pause deliveries"
                  title={`Pause deliveries to ${d.origin}?`}
                  onConfirm={async () =>
                    setShown(
                      await client.destinations.pause(d.origin, {
                        ...(pauseHours
                          ? { until: new Date(Date.now() + pauseHours * 3_600_000).toISOString() }
                          : {}),
                        ...(note.trim() ? { note: note.trim() } : {}),
                      }),
                    )
                  }
                >
                  <p>
                    Every delivery to this origin waits (no attempt spent, nothing lost) until resumed.
                    Approval messages are not held.
                  </p>
                  <p>
                    <PauseLength hours={pauseHours} onChange={setPauseHours} />
                  </p>
                  <p>
                    <label>
                      Note{' '}
                      <input
                        value={note}
                        maxLength={1000}
                        onInput={(e) => setNote(e.currentTarget.value)}
                        placeholder="partner maintenance"
                      />
                    </label>
                  </p>
                </ConfirmButton>
              )}
            </div>
          )}
          <Facts
            facts={[
              {
                label: 'Circuit',
                value: (
                  <>
                    <Status status={d.circuit.state} />
                    {!d.circuit.enabled && <span class="muted"> (breaker off)</span>}
                  </>
                ),
              },
              {
                label: 'Failing since',
                value: <When at={d.circuit.opened_at} />,
                show: Boolean(d.circuit.opened_at),
              },
              {
                label: 'Next probe',
                value: <When at={d.circuit.next_probe_at} />,
                show: Boolean(d.circuit.next_probe_at),
              },
              { label: 'Failed probes', value: d.circuit.reopens, show: d.circuit.reopens > 0 },
              { label: 'Paused', value: <When at={d.pause?.paused_at} />, show: Boolean(d.pause) },
              {
                label: 'Until',
                value: d.pause?.until ? <When at={d.pause.until} /> : 'resumed',
                show: Boolean(d.pause),
              },
              { label: 'Note', value: d.pause?.note, show: Boolean(d.pause?.note) },
              { label: 'In flight', value: d.in_flight },
              { label: 'Due and waiting', value: d.waiting },
            ]}
          />
          <h2>Last 24 hours</h2>
          <Facts
            figures
            facts={[
              { label: 'Attempts', value: d.stats.last_24h.attempts },
              { label: 'Failures', value: d.stats.last_24h.failures },
              { label: 'Duration p50', value: <Ms ms={d.stats.last_24h.p50_ms} /> },
              { label: 'Duration p99', value: <Ms ms={d.stats.last_24h.p99_ms} /> },
            ]}
          />
          <p>
            <a href={href('actions', { destination_origin: d.origin })}>Its actions</a> ·{' '}
            <a href={href('failed', { destination_host: d.host })}>the failed actions to its host</a>
          </p>
          {canWrite ? (
            <>
              <TestSend origin={d.origin} />
              <SettingsForm d={d} onSaved={setShown} />
              <Recover origin={d.origin} onDone={reload} />
            </>
          ) : (
            <>
              <h2>Settings</h2>
              <Facts
                facts={[
                  {
                    label: 'Flow control',
                    value: (
                      <>
                        {d.flow
                          ? [
                              d.flow.rate !== undefined ? `${d.flow.rate} per ${d.flow.period ?? '1s'}` : '',
                              d.flow.parallelism !== undefined ? `${d.flow.parallelism} in flight` : '',
                            ]
                              .filter(Boolean)
                              .join(', ')
                          : 'no limit'}
                      </>
                    ),
                  },
                  {
                    label: 'Circuit breaker',
                    value: (
                      <>
                        {d.circuit.enabled
                          ? `opens at ${d.circuit.failure_rate * 100} % failures of at least ${d.circuit.min_requests} in ${d.circuit.window}, for ${d.circuit.open_for}; disabled after ${d.circuit.disable_after}`
                          : 'off'}
                      </>
                    ),
                  },
                ]}
              />
            </>
          )}
        </>
      )}
    </DetailPage>
  );
}

export function DestinationsPanel({ route }: { route: Route }) {
  const name = route.path.split('/')[1];
  return name ? <DestinationDetail name={decodeURIComponent(name)} /> : <DestinationList route={route} />;
}
