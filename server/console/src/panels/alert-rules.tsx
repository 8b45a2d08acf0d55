import {
  ACTION_MODES,
  ALERT_CHANNEL_TYPES,
  ALERT_DEFAULTS,
  type AlertChannel,
  type AlertChannelInput,
  type AlertChannelType,
  OPERATOR_EVENT_TYPES,
} from '@sched/contract';
import type { AlertRule, AlertRuleCreateBody, AlertRuleUpdateBody } from '@sched/sdk';
import { useEffect, useId, useState } from 'preact/hooks';
import { href, navigate, type Route } from '../router.js';
import {
  activeState,
  AnySelect,
  ConfirmButton,
  DetailPage,
  ErrorNote,
  FieldError,
  FieldInput,
  formFields,
  Notice,
  Status,
  useConsole,
  useLoad,
  useRequest,
  WhenLoaded,
  When,
} from '../ui.js';
import { ListPage, pageOf } from '../ui/list.js';
import { DataTable, Facts } from '../ui/table.js';

/** How often a rule is read again while one of its messages waits to go out. */
const POLL_MS = 1000;

const EVENT_NAMES: Record<(typeof OPERATOR_EVENT_TYPES)[number], string> = {
  'action.failed': 'an action failed for good',
  'approval.expired': 'an approval timed out unanswered',
  'destination.circuit_opened': "a host's circuit opened",
  'destination.circuit_closed': "a host's circuit closed again",
  'destination.disabled': 'a host was disabled',
  'delivery.late': 'a delivery started late',
  'bulk_operation.completed': 'a bulk operation finished',
  'notification.undeliverable': 'an approval message could not be sent (channel not configured)',
};

/**
 * One channel row of the form: `target` is the address, the webhook URL, or for Slack and Teams a chat channel's id
 * or an incoming-webhook URL (saved first as a chat channel, `POST /v1/channels`, whose id the rule then names).
 */
interface ChannelRow {
  type: AlertChannelType;
  target: string;
  /** A webhook's signing secret; empty keeps the stored one of the same URL. */
  secret: string;
}

const TARGET_LABEL: Record<AlertChannelType, string> = {
  email: 'Email address',
  sms: 'Phone (E.164)',
  slack: 'Slack webhook URL or channel id',
  teams: 'Teams webhook URL or channel id',
  webhook: 'Webhook URL',
};

function rowOf(c: AlertChannel): ChannelRow {
  switch (c.type) {
    case 'email':
    case 'sms':
      return { type: c.type, target: c.to, secret: '' };
    case 'slack':
    case 'teams':
      return { type: c.type, target: c.channel, secret: '' };
    case 'webhook':
      return { type: 'webhook', target: c.url, secret: '' };
  }
}

function inputOf(r: ChannelRow): AlertChannelInput {
  switch (r.type) {
    case 'email':
    case 'sms':
      return { type: r.type, to: r.target.trim() };
    case 'slack':
    case 'teams':
      return { type: r.type, channel: r.target.trim() };
    case 'webhook':
      return { type: 'webhook', url: r.target.trim(), ...(r.secret ? { secret: r.secret } : {}) };
  }
}

/** Where a channel sends, in a few words. */
function describeChannel(c: AlertChannel): string {
  switch (c.type) {
    case 'email':
    case 'sms':
      return `${c.type} ${c.to}`;
    case 'slack':
    case 'teams':
      return `${c.type} channel ${c.channel}`;
    case 'webhook':
      return `webhook ${c.url}${c.signed ? ' (signed)' : ''}`;
  }
}

function thresholdOf(r: Pick<AlertRule, 'threshold'>): string {
  return r.threshold ? `${r.threshold.count} within ${r.threshold.window}` : 'every event';
}

/** Sends a rule's test (one sample per channel, now); `onSent` hears how many were queued. */
function TestButton({
  rule,
  label,
  onSent,
}: {
  rule: Pick<AlertRule, 'id' | 'name' | 'channels'>;
  label: string;
  onSent: (n: number) => void;
}) {
  const { client } = useConsole();
  let queued = 0;
  return (
    <ConfirmButton
      label={label}
      confirmLabel="Send a test"
      context={rule.name}
      title={`Send a test of “${rule.name}”?`}
      onConfirm={async () => {
        queued = (await client.alertRules.test(rule.id)).notifications.length;
      }}
      onDone={() => onSent(queued)}
    >
      A sample message marked as a test goes now to each of its {rule.channels.length} channel(s), counted
      against the plan's allowances like any alert. One test per rule a minute.
    </ConfirmButton>
  );
}

const queuedText = (n: number) => `${n} sample message${n === 1 ? '' : 's'} queued, one per channel.`;

function RuleList({ route }: { route: Route }) {
  const { canWrite } = useConsole();
  const [sent, setSent] = useState<{ id: string; name: string; count: number }>();
  const page = pageOf(route);
  const list = useLoad((c) => c.alertRules.list({ page, per_page: 25 }), [page]);
  return (
    <>
      <h1>Alert rules</h1>
      <p class="muted">
        Which operator events to tell of, and where: email, SMS, Slack, Teams or a signed webhook.
      </p>
      {canWrite && (
        <p>
          <a class="button primary" href={href('alerts/new')}>
            New alert rule
          </a>
        </p>
      )}
      <Notice>
        {sent && (
          <>
            “{sent.name}”: {queuedText(sent.count)} <a href={href(`alerts/${sent.id}`)}>See how each went</a>
          </>
        )}
      </Notice>
      <ListPage list={list} noun="alert rules" view="alerts">
        {(rows) => (
          <>
            <DataTable
              rows={rows}
              columns={[
                { label: 'Name', cell: (r) => <a href={href(`alerts/${r.id}`)}>{r.name}</a> },
                { label: 'State', cell: (r) => <Status status={activeState(r.enabled)} /> },
                {
                  label: 'Events',
                  cell: (r) =>
                    r.events.map((e) => (
                      <code key={e} class="tag">
                        {e}
                      </code>
                    )),
                },
                { label: 'Threshold', cell: thresholdOf },
                { label: 'Channels', cell: (r) => r.channels.map(describeChannel).join(', ') },
                { label: 'Last alert', cell: (r) => <When at={r.state.last_alerted_at} /> },
                canWrite && {
                  label: 'Test',
                  hiddenLabel: true,
                  cell: (r) => (
                    <TestButton
                      rule={r}
                      label="Test"
                      onSent={(count) => setSent({ id: r.id, name: r.name, count })}
                    />
                  ),
                },
              ]}
            />
            {rows.length === 0 && <p class="muted">No alert rule yet.</p>}
          </>
        )}
      </ListPage>
    </>
  );
}

/** The rule's filters typed as text, with an example of each. */
const TEXT_FILTERS = [
  ['destination_host', 'Destination host', 'api.example.com'],
  ['destination_origin', 'Destination origin', 'https://api.example.com'],
  ['dedup_key', 'Dedup key', undefined],
] as const;

/** The rule's timings, each in the form with its default as the placeholder. */
const TIMINGS = [
  ['group_wait', 'Group events within'],
  ['repeat_every', 'At most one message per'],
  ['late_after', 'Late after (with delivery.late)'],
] as const;

const text = (data: FormData, name: string) => String(data.get(name) ?? '').trim();

/**
 * The create and edit form. On edit, an emptied optional field is sent as `null` (its default applies again), and
 * a webhook channel without a new secret keeps the stored one of the same URL (the API's rule).
 */
function RuleForm({ rule }: { rule?: AlertRule }) {
  const { client } = useConsole();
  const chat = useLoad((c) => c.channels.list().catch(() => []), []);
  const [channels, setChannels] = useState<ChannelRow[]>(
    rule ? rule.channels.map(rowOf) : [{ type: 'email', target: '', secret: '' }],
  );
  const { busy, error, run } = useRequest();
  const ids = useId();
  const setRow = (i: number, change: Partial<ChannelRow>) =>
    setChannels(channels.map((r, j) => (j === i ? { ...r, ...change } : r)));
  const submit = (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const filter = {
      ...(text(data, 'mode') ? { mode: text(data, 'mode') as (typeof ACTION_MODES)[number] } : {}),
      ...(text(data, 'destination_host') ? { destination_host: text(data, 'destination_host') } : {}),
      ...(text(data, 'destination_origin') ? { destination_origin: text(data, 'destination_origin') } : {}),
      ...(text(data, 'dedup_key') ? { dedup_key: text(data, 'dedup_key') } : {}),
    };
    const count = text(data, 'threshold_count');
    const window = text(data, 'threshold_window');
    // Half a threshold is sent as given: the service answers which part is missing.
    const threshold = count || window ? { count: count ? Number(count) : Number.NaN, window } : undefined;
    const timing = (k: 'group_wait' | 'repeat_every' | 'late_after') => text(data, k) || undefined;
    const name = text(data, 'name');
    return run(async () => {
      // Chat channels the form made from a webhook URL: removed again if the rule is not saved.
      const made: string[] = [];
      try {
        const inputs: AlertChannelInput[] = [];
        for (const row of channels) {
          const url = row.target.trim();
          if ((row.type === 'slack' || row.type === 'teams') && /^https?:\/\//.test(url)) {
            const chat = await client.channels.create({
              name: `${name || 'alerts'} (${row.type})`.slice(0, 255),
              type: row.type,
              webhook_url: url,
            });
            made.push(chat.id);
            inputs.push({ type: row.type, channel: chat.id });
          } else inputs.push(inputOf(row));
        }
        const fields = {
          name,
          enabled: data.get('enabled') === 'on',
          events: OPERATOR_EVENT_TYPES.filter((t) => data.getAll('events').includes(t)),
          channels: inputs,
        };
        if (rule) {
          const body: AlertRuleUpdateBody = {
            ...fields,
            filter: Object.keys(filter).length > 0 ? filter : null,
            threshold: threshold ?? null,
            group_wait: timing('group_wait') ?? null,
            repeat_every: timing('repeat_every') ?? null,
            late_after: timing('late_after') ?? null,
          };
          await client.alertRules.update(rule.id, body);
          navigate(`alerts/${rule.id}`);
        } else {
          const body: AlertRuleCreateBody = {
            ...fields,
            ...(Object.keys(filter).length > 0 ? { filter } : {}),
            ...(threshold ? { threshold } : {}),
            ...(timing('group_wait') ? { group_wait: timing('group_wait') } : {}),
            ...(timing('repeat_every') ? { repeat_every: timing('repeat_every') } : {}),
            ...(timing('late_after') ? { late_after: timing('late_after') } : {}),
          };
          const created = await client.alertRules.create(body);
          navigate(`alerts/${created.id}`);
        }
      } catch (err) {
        for (const id of made) await client.channels.delete(id).catch(() => undefined);
        throw err;
      }
    });
  };
  const chatChannels = chat.data ?? [];
  const form = formFields(error, ids);
  const f = form.each({
    name: ['name'],
    events: ['events'],
    mode: ['filter.mode'],
    destination_host: ['filter.destination_host'],
    destination_origin: ['filter.destination_origin'],
    dedup_key: ['filter.dedup_key'],
    count: ['threshold.count'],
    window: ['threshold.window', 'threshold'],
    group_wait: ['group_wait'],
    repeat_every: ['repeat_every'],
    late_after: ['late_after'],
  });
  // A channel's address, id or URL stands for the fields of its type; its secret for `secret`.
  const target = (i: number) =>
    form.at(
      `channel-${i}`,
      ['to', 'channel', 'url', 'type'].map((k) => `channels.${i}.${k}`),
    );
  const secret = (i: number) => form.at(`channel-${i}-secret`, [`channels.${i}.secret`]);
  return (
    <form class="settings-form" onSubmit={submit} aria-labelledby="rule-form-title">
      <h1 id="rule-form-title">{rule ? `Edit “${rule.name}”` : 'New alert rule'}</h1>
      <fieldset class="filters">
        <legend>Rule</legend>
        <FieldInput
          label="Name"
          state={f.name}
          name="name"
          required
          maxLength={255}
          defaultValue={rule?.name ?? ''}
        />
        <label class="inline">
          <input name="enabled" type="checkbox" defaultChecked={rule?.enabled ?? true} /> Enabled
        </label>
      </fieldset>
      <fieldset class="filters">
        <legend>Events to tell of</legend>
        {OPERATOR_EVENT_TYPES.map((t) => (
          <label class="inline" key={t}>
            <input
              type="checkbox"
              name="events"
              value={t}
              defaultChecked={rule ? rule.events.includes(t) : t === 'action.failed'}
            />{' '}
            <code>{t}</code>: {EVENT_NAMES[t]}
          </label>
        ))}
        <FieldError state={f.events} />
      </fieldset>
      <fieldset class="filters">
        <legend>Only events about (empty: any)</legend>
        <label>
          Mode
          <AnySelect name="mode" values={ACTION_MODES} selected={rule?.filter?.mode} />
          <FieldError state={f.mode} />
        </label>
        {TEXT_FILTERS.map(([name, label, placeholder]) => (
          <FieldInput
            key={name}
            label={label}
            state={f[name]}
            name={name}
            defaultValue={rule?.filter?.[name] ?? ''}
            placeholder={placeholder}
          />
        ))}
      </fieldset>
      <fieldset class="filters">
        <legend>Threshold (empty: alert on every event)</legend>
        <FieldInput
          label="At least (events)"
          state={f.count}
          name="threshold_count"
          type="number"
          min={1}
          max={1000}
          defaultValue={rule?.threshold?.count.toString() ?? ''}
        />
        <FieldInput
          label="within"
          state={f.window}
          name="threshold_window"
          defaultValue={rule?.threshold?.window ?? ''}
          placeholder="10m"
        />
      </fieldset>
      <fieldset class="channels">
        <legend>Channels</legend>
        {chatChannels.length > 0 && (
          <datalist id="chat-channels">
            {chatChannels.map((c) => (
              <option key={c.id} value={c.id}>
                {c.type}: {c.name}
              </option>
            ))}
          </datalist>
        )}
        <ol>
          {channels.map((r, i) => {
            const t = target(i);
            const sec = secret(i);
            return (
              <li key={i} class="filters">
                <label>
                  Channel {i + 1} type
                  <select
                    value={r.type}
                    onChange={(e) => setRow(i, { type: e.currentTarget.value as AlertChannelType })}
                  >
                    {ALERT_CHANNEL_TYPES.map((t) => (
                      <option key={t} value={t}>
                        {t}
                      </option>
                    ))}
                  </select>
                </label>
                <FieldInput
                  label={`Channel ${i + 1} ${TARGET_LABEL[r.type].toLowerCase()}`}
                  state={t}
                  value={r.target}
                  required
                  list={r.type === 'slack' || r.type === 'teams' ? 'chat-channels' : undefined}
                  type={r.type === 'email' ? 'email' : r.type === 'webhook' ? 'url' : 'text'}
                  onInput={(e) => setRow(i, { target: e.currentTarget.value })}
                />
                {r.type === 'webhook' && (
                  <FieldInput
                    label={`Channel ${i + 1} signing secret`}
                    state={sec}
                    type="password"
                    autoComplete="off"
                    value={r.secret}
                    placeholder={rule ? 'unchanged' : 'optional'}
                    onInput={(e) => setRow(i, { secret: e.currentTarget.value })}
                  />
                )}
                {channels.length > 1 && (
                  <button type="button" onClick={() => setChannels(channels.filter((_, j) => j !== i))}>
                    Remove channel {i + 1}
                  </button>
                )}
              </li>
            );
          })}
        </ol>
        {channels.length < 10 && (
          <button
            type="button"
            onClick={() => setChannels([...channels, { type: 'email', target: '', secret: '' }])}
          >
            Add a channel
          </button>
        )}
      </fieldset>
      <fieldset class="filters">
        <legend>Timing (empty: the default)</legend>
        {TIMINGS.map(([name, label]) => (
          <FieldInput
            key={name}
            label={label}
            state={f[name]}
            name={name}
            defaultValue={rule?.[name] ?? ''}
            placeholder={ALERT_DEFAULTS[name]}
          />
        ))}
      </fieldset>
      <ErrorNote error={error} beside={form.beside} />
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy}>
          {rule ? 'Save the rule' : 'Create the rule'}
        </button>
        <a href={href(rule ? `alerts/${rule.id}` : 'alerts')}>Cancel</a>
      </div>
    </form>
  );
}

function RuleDetail({ id }: { id: string }) {
  const { client, canWrite } = useConsole();
  const loaded = useLoad((c) => c.alertRules.get(id), [id]);
  const [notice, setNotice] = useState<string>();
  const r = loaded.data;
  // Messages just queued (a test) go out within a second or so: read the rule again until none is pending.
  useEffect(() => {
    if (!r?.recent_notifications.some((n) => n.status === 'pending')) return;
    const timer = setTimeout(loaded.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [r]);
  return (
    <DetailPage
      back={{ view: 'alerts', text: 'All alert rules' }}
      loaded={loaded}
      what="the alert rule"
      name={(r) => r.name}
      state={(r) => activeState(r.enabled)}
    >
      {(r) => (
        <>
          {canWrite && (
            <div class="buttons">
              <a class="button" href={href(`alerts/${r.id}/edit`)}>
                Edit
              </a>
              <TestButton
                rule={r}
                label="Send a test"
                onSent={(n) => {
                  setNotice(queuedText(n));
                  loaded.reload();
                }}
              />
              <ConfirmButton
                label={r.enabled ? 'Disable' : 'Enable'}
                title={`${r.enabled ? 'Disable' : 'Enable'} “${r.name}”?`}
                onConfirm={() => client.alertRules.update(r.id, { enabled: !r.enabled })}
                onDone={loaded.reload}
              >
                {r.enabled
                  ? 'It matches nothing until enabled again, and drops what it was about to send.'
                  : 'It tells of matching events again from now on.'}
              </ConfirmButton>
              <ConfirmButton
                label="Delete"
                title={`Delete “${r.name}”?`}
                danger
                onConfirm={async () => {
                  await client.alertRules.delete(r.id);
                  navigate('alerts');
                }}
              >
                Permanent: messages not yet sent for it are dropped.
              </ConfirmButton>
            </div>
          )}
          <Notice>{notice}</Notice>
          <Facts
            facts={[
              { label: 'Events', value: r.events.join(', ') },
              {
                label: 'Only about',
                value: (
                  <>
                    {r.filter && Object.keys(r.filter).length > 0
                      ? Object.entries(r.filter)
                          .map(([k, v]) => `${k} ${v}`)
                          .join(', ')
                      : 'anything'}
                  </>
                ),
              },
              { label: 'Threshold', value: thresholdOf(r) },
              { label: 'Grouped within', value: r.group_wait },
              { label: 'At most once per', value: r.repeat_every },
              { label: 'Late after', value: r.late_after, show: Boolean(r.late_after) },
              {
                label: 'Waiting to go out',
                value: (
                  <>
                    {r.state.pending}{' '}
                    {r.state.next_alert_at && (
                      <>
                        {' '}
                        (<When at={r.state.next_alert_at} />){' '}
                      </>
                    )}
                  </>
                ),
              },
              { label: 'Last alert', value: <When at={r.state.last_alerted_at} /> },
            ]}
          />
          <h2>Channels</h2>
          <ol>
            {r.channels.map((c, i) => (
              <li key={i}>{describeChannel(c)}</li>
            ))}
          </ol>
          <h2>Recent messages</h2>
          {r.recent_notifications.length === 0 ? (
            <p class="muted">None yet.</p>
          ) : (
            <DataTable
              rows={r.recent_notifications}
              columns={[
                {
                  label: 'Queued',
                  cell: (n) => (
                    <>
                      <When at={n.created_at} />
                      {n.test && <span class="muted"> (test)</span>}
                    </>
                  ),
                },
                {
                  label: 'Channel',
                  cell: (n) => (
                    <>
                      {n.channel + 1}. {n.type}
                    </>
                  ),
                },
                {
                  label: 'State',
                  cell: (n) => (
                    <>
                      <Status status={n.status} />
                      {n.error && <div class="error-text">{n.error}</div>}
                    </>
                  ),
                },
                { label: 'Events', cell: (n) => n.count },
                { label: 'Attempts', cell: (n) => n.attempts },
                { label: 'Sent', cell: (n) => <When at={n.sent_at} /> },
              ]}
            />
          )}
        </>
      )}
    </DetailPage>
  );
}

function RuleEdit({ id }: { id: string }) {
  const loaded = useLoad((c) => c.alertRules.get(id), [id]);
  return (
    <WhenLoaded loaded={loaded} what="the alert rule">
      {(rule) => <RuleForm rule={rule} />}
    </WhenLoaded>
  );
}

/** `alerts`, `alerts/new`, `alerts/<id>`, `alerts/<id>/edit`; the forms are offered to write-scope sessions only. */
export function AlertRulesPanel({ route }: { route: Route }) {
  const { canWrite } = useConsole();
  const [, id, edit] = route.path.split('/');
  if (id === 'new' && canWrite) return <RuleForm />;
  if (id && id !== 'new' && edit === 'edit' && canWrite) return <RuleEdit id={id} />;
  if (id && id !== 'new') return <RuleDetail id={id} />;
  return <RuleList route={route} />;
}
