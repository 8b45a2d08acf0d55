import type { DomainDetail } from '@sched/sdk';
import { SchedApiError } from '@sched/sdk';
import { useState } from 'preact/hooks';
import { ErrorNote, Loading, Status, useConsole, useLoad, When } from '../ui.js';
import { DataTable } from '../ui/table.js';
import { AdminSettings } from './api-keys.js';
import { QuotaSection } from './overview.js';

function Contacts() {
  const contacts = useLoad((c) => c.contacts.list(), []);
  return (
    <section aria-labelledby="contacts-title">
      <h2 id="contacts-title">Contacts</h2>
      <ErrorNote error={contacts.error} onRetry={contacts.reload} />
      {!contacts.data && !contacts.error && <Loading what="contacts" />}
      {contacts.data &&
        (contacts.data.length === 0 ? (
          <p class="muted">No contact yet. Gate recipients can name them as contact:&lt;id&gt;:email.</p>
        ) : (
          <DataTable
            rows={contacts.data}
            columns={[
              { label: 'Name', cell: (c) => c.name },
              { label: 'Email', cell: (c) => c.email ?? '—' },
              { label: 'Phone', cell: (c) => c.phone ?? '—' },
              { label: 'Id', cell: (c) => <code>{c.id}</code> },
            ]}
          />
        ))}
    </section>
  );
}

function Channels() {
  const channels = useLoad((c) => c.channels.list(), []);
  // Slack and Teams channels are a Business feature: other plans get a 403, said plainly rather than as an error.
  const planRefused = channels.error instanceof SchedApiError && channels.error.status === 403;
  return (
    <section aria-labelledby="channels-title">
      <h2 id="channels-title">Slack and Teams channels</h2>
      {planRefused ? (
        <p class="muted">{channels.error?.message}</p>
      ) : (
        <ErrorNote error={channels.error} onRetry={channels.reload} />
      )}
      {!channels.data && !channels.error && <Loading what="channels" />}
      {channels.data &&
        (channels.data.length === 0 ? (
          <p class="muted">No channel yet.</p>
        ) : (
          <DataTable
            rows={channels.data}
            columns={[
              { label: 'Name', cell: (c) => c.name },
              { label: 'Type', cell: (c) => c.type },
              { label: 'Webhook URL', cell: (c) => <code>{c.webhook_url}</code> },
            ]}
          />
        ))}
    </section>
  );
}

function VerificationSteps({ detail }: { detail: DomainDetail }) {
  const m = detail.verification_methods;
  if (!m) return <p class="muted">Start the verification to get a token.</p>;
  return (
    <ol>
      <li>
        Either publish a DNS TXT record on <code>{m.dns.name}</code> with the value <code>{m.dns.value}</code>
        ,
      </li>
      <li>
        or serve <code>{m.file.url}</code> with the content <code>{m.file.content}</code>.
      </li>
      <li>Then check: the service also checks by itself until the domain is verified.</li>
    </ol>
  );
}

function DomainRow({ domain }: { domain: string }) {
  const { client, canWrite } = useConsole();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<Error>();
  const [busy, setBusy] = useState(false);
  const detail = useLoad((c) => (open ? c.domains.get(domain) : Promise.resolve(undefined)), [open, domain]);
  const act = async (what: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await what();
      detail.reload();
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  const d = detail.data;
  return (
    <li>
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
        {domain}
      </button>
      {open && (
        <div class="domain">
          <ErrorNote error={detail.error ?? error} />
          {!d && !detail.error && <Loading what="the domain" />}
          {d && (
            <>
              <p>
                <Status status={d.status} /> · {d.usage.today} of {d.usage.day_limit} today,{' '}
                {d.usage.this_month} of {d.usage.month_limit} this month while unverified · last checked{' '}
                <When at={d.last_check_at} />
              </p>
              {d.status !== 'verified' && <VerificationSteps detail={d} />}
              {d.last_errors && (d.last_errors.dns || d.last_errors.file) && (
                <p class="error-text">
                  Last check: {[d.last_errors.dns, d.last_errors.file].filter(Boolean).join('; ')}
                </p>
              )}
              {canWrite && d.status !== 'verified' && (
                <div class="buttons">
                  {d.status === 'unverified' ? (
                    <button
                      type="button"
                      disabled={busy}
                      onClick={() => act(() => client.domains.verify(domain))}
                    >
                      Start verification
                    </button>
                  ) : (
                    <button
                      type="button"
                      disabled={busy}
                      onClick={() => act(() => client.domains.check(domain))}
                    >
                      Check now
                    </button>
                  )}
                </div>
              )}
            </>
          )}
        </div>
      )}
    </li>
  );
}

function Domains() {
  const domains = useLoad((c) => c.domains.list(), []);
  return (
    <section aria-labelledby="domains-title">
      <h2 id="domains-title">Destination domains</h2>
      <p class="muted">
        Hostnames the account sends to. Unverified ones are held to daily and monthly limits; verify a domain
        by DNS or by a file to lift them.
      </p>
      <ErrorNote error={domains.error} onRetry={domains.reload} />
      {!domains.data && !domains.error && <Loading what="domains" />}
      {domains.data &&
        (domains.data.length === 0 ? (
          <p class="muted">No domain yet.</p>
        ) : (
          <ul class="domains">
            {domains.data.map((d) => (
              <DomainRow key={d.domain} domain={d.domain} />
            ))}
          </ul>
        ))}
    </section>
  );
}

const CHANNEL_STATE_TEXT: Record<string, string> = {
  configured: 'messages are sent',
  outbox: 'messages are kept in the outbox (development server)',
  not_configured: 'approvals using only this channel are refused; others record its messages as not sent',
};

/** What this server can send, as /readyz reports it (the settings a channel needs are in docs/approvals.md). */
function NotificationChannels() {
  const ready = useLoad(
    () =>
      fetch('/readyz', { headers: { accept: 'application/json' } }).then(
        (r) => r.json() as Promise<{ channels?: Record<string, string> }>,
      ),
    [],
  );
  const channels = Object.entries(ready.data?.channels ?? {});
  return (
    <section aria-labelledby="notification-channels-title">
      <h2 id="notification-channels-title">Notification channels</h2>
      <ErrorNote error={ready.error} onRetry={ready.reload} />
      {!ready.data && !ready.error && <Loading what="notification channels" />}
      {ready.data && (
        <DataTable
          rows={channels}
          rowKey={([name]) => name}
          rowData={([name, state]) => ({ 'data-channel': name, 'data-state': state })}
          columns={[
            { label: 'Channel', cell: ([name]) => name },
            {
              label: 'State',
              cell: ([, state]) => (
                <>
                  <Status status={state} /> <span class="muted">{CHANNEL_STATE_TEXT[state] ?? ''}</span>
                </>
              ),
            },
          ]}
        />
      )}
    </section>
  );
}

interface ReplicaState {
  state: string;
  lag_seconds: number | null;
  max_lag_seconds: number;
}

const REPLICA_STATE_TEXT: Record<string, string> = {
  streaming: 'lists, stats and exports are read from it',
  lagging: 'behind its bound: reads go to the primary until it catches up',
  unavailable: 'not answering: reads go to the primary',
};

/** The read replica (SCHED_READ_DATABASE_URL), as /readyz reports it; nothing when none is configured. */
function ReadReplica() {
  const ready = useLoad(
    () =>
      fetch('/readyz', { headers: { accept: 'application/json' } }).then(
        (r) => r.json() as Promise<{ read_replica?: ReplicaState }>,
      ),
    [],
  );
  const replica = ready.data?.read_replica;
  if (!replica) return null;
  const lag = replica.lag_seconds === null ? 'unknown' : `${replica.lag_seconds.toFixed(1)} s`;
  return (
    <section aria-labelledby="read-replica-title">
      <h2 id="read-replica-title">Read replica</h2>
      <p data-replica-state={replica.state}>
        <Status status={replica.state} /> lag {lag} (bound {replica.max_lag_seconds} s){' '}
        <span class="muted">{REPLICA_STATE_TEXT[replica.state] ?? ''}</span>
      </p>
    </section>
  );
}

export function SettingsPanel() {
  return (
    <>
      <h1>Settings</h1>
      <QuotaSection />
      <NotificationChannels />
      <ReadReplica />
      <Contacts />
      <Channels />
      <Domains />
      <AdminSettings />
    </>
  );
}
