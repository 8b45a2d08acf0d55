import { API_KEY_SCOPES, type ApiKeyScope } from '@sched/contract';
import { useState } from 'preact/hooks';
import { ConfirmButton, CopyButton, ErrorNote, Loading, useConsole, useLoad, When } from '../ui.js';
import { DataTable } from '../ui/table.js';

/** A secret the API answers once (create, rotate): shown here once, with a way to copy it. */
function Secret({ secret, onDismiss }: { secret: string; onDismiss: () => void }) {
  return (
    <div class="note" role="status">
      <p>
        The new key, shown this once: <code class="url">{secret}</code>
      </p>
      <CopyButton text={secret} label="Copy key" />{' '}
      <button type="button" onClick={onDismiss}>
        I have stored it
      </button>
    </div>
  );
}

/**
 * What only an `admin` key manages: the account's API keys (`/v1/api-keys`) and its signing secret
 * (`/v1/signing-secret`). The server refuses every other key, so the sections are not shown to them.
 */
export function AdminSettings() {
  if (!useConsole().session.scopes.includes('admin')) return null;
  return (
    <>
      <ApiKeyList />
      <SigningSecretCard />
    </>
  );
}

function ApiKeyList() {
  const { client } = useConsole();
  const keys = useLoad((c) => c.keys.list(), []);
  const [secret, setSecret] = useState<string>();
  const [error, setError] = useState<Error>();
  const [scopes, setScopes] = useState<ApiKeyScope[]>(['read']);

  const create = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const name = String(new FormData(form).get('name') ?? '').trim();
    setError(undefined);
    try {
      const created = await client.keys.create({ name, scopes });
      setSecret(created.key);
      form.reset();
      keys.reload();
    } catch (err) {
      setError(err as Error);
    }
  };

  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      {secret && <Secret secret={secret} onDismiss={() => setSecret(undefined)} />}
      <ErrorNote error={keys.error} onRetry={keys.reload} />
      {!keys.data && !keys.error && <Loading what="API keys" />}
      {keys.data && (
        <DataTable
          rows={keys.data}
          columns={[
            { label: 'Name', cell: (k) => k.name ?? '—' },
            { label: 'Prefix', cell: (k) => <code>{k.prefix}…</code> },
            { label: 'Scopes', cell: (k) => k.scopes.join(', ') },
            { label: 'Last used', cell: (k) => <When at={k.last_used_at} /> },
            { label: 'Expires', cell: (k) => <When at={k.expires_at} /> },
            {
              label: 'Changes',
              hiddenLabel: true,
              class: 'row-buttons',
              cell: (k) => (
                <>
                  <ConfirmButton
                    label={`Rotate ${k.name ?? k.prefix}`}
                    title={`Rotate “${k.name ?? k.prefix}”?`}
                    onConfirm={async () => setSecret((await client.keys.rotate(k.id)).data.key)}
                    onDone={keys.reload}
                  >
                    A new secret with the same name and scopes is made; the current one keeps working for 24
                    hours.
                  </ConfirmButton>
                  <ConfirmButton
                    label={`Revoke ${k.name ?? k.prefix}`}
                    title={`Revoke “${k.name ?? k.prefix}”?`}
                    danger
                    onConfirm={async () => client.keys.revoke(k.id)}
                    onDone={keys.reload}
                  >
                    It stops working at once, everywhere (a console signed in with it too).
                  </ConfirmButton>
                </>
              ),
            },
          ]}
        />
      )}
      <form class="filters" onSubmit={create} aria-label="Create an API key">
        <label>
          Name of a new key
          <input name="name" required maxLength={255} />
        </label>
        <fieldset class="scopes">
          <legend>Scopes</legend>
          {API_KEY_SCOPES.map((s) => (
            <label key={s} class="inline">
              <input
                type="checkbox"
                checked={scopes.includes(s)}
                onChange={(e) =>
                  setScopes(e.currentTarget.checked ? [...scopes, s] : scopes.filter((x) => x !== s))
                }
              />{' '}
              {s}
            </label>
          ))}
        </fieldset>
        <button type="submit" class="primary">
          Create key
        </button>
      </form>
      <ErrorNote error={error} />
    </section>
  );
}

/** The account's signing secret (every account is made with one): what signs actions and chains without their own. */
function SigningSecretCard() {
  const { client } = useConsole();
  const current = useLoad((c) => c.signingSecret.get(), []);
  const [shown, setShown] = useState(false);
  const secret = current.data?.secret ?? null;
  return (
    <section aria-labelledby="signing-title">
      <h2 id="signing-title">Signing secret</h2>
      <ErrorNote error={current.error} onRetry={current.reload} />
      {!current.data && !current.error && <Loading what="the signing secret" />}
      {current.data && (
        <>
          <p>
            {secret === null
              ? 'None: actions and chains without a webhook secret of their own are sent unsigned.'
              : 'Actions and chains without a webhook secret of their own are signed with this secret.'}
          </p>
          {secret !== null && (
            <p>
              <code class="url">{shown ? secret : `${secret.slice(0, 10)}…`}</code>{' '}
              <button type="button" onClick={() => setShown(!shown)}>
                {shown ? 'Hide' : 'Show'}
              </button>{' '}
              <CopyButton text={secret} label="Copy secret" /> made <When at={current.data.created_at} />
              {current.data.previous_expires_at && (
                <>
                  ; the replaced secret also signs until <When at={current.data.previous_expires_at} />
                </>
              )}
            </p>
          )}
          <p class="row-buttons">
            <ConfirmButton
              label={secret === null ? 'Make a signing secret' : 'Make a new signing secret'}
              title={secret === null ? 'Make a signing secret?' : 'Replace the signing secret?'}
              onConfirm={async () => {
                await client.signingSecret.create();
                setShown(true);
              }}
              onDone={current.reload}
            >
              Live actions, series and chains without a webhook secret of their own move to the new secret at
              once. For 24 hours every request also carries a signature made with the replaced one: deploy the
              new secret to your receivers meanwhile.
            </ConfirmButton>
            {secret !== null && (
              <ConfirmButton
                label="Remove the signing secret"
                title="Remove the signing secret?"
                danger
                onConfirm={async () => client.signingSecret.delete()}
                onDone={current.reload}
              >
                Actions and chains without a webhook secret of their own are sent unsigned from now on.
              </ConfirmButton>
            )}
          </p>
        </>
      )}
    </section>
  );
}
