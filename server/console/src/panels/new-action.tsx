// A webhook scheduled from the console: the few fields most actions need; everything else (retries, signing,
// recurrence, gates) stays with the API, the SDK and the CLI, whose defaults apply here too.
import { HTTP_METHODS } from '@sched/contract';
import { useId } from 'preact/hooks';
import { navigate } from '../router.js';
import { BackLink, ErrorNote, FieldError, FieldInput, formFields, useConsole, useRequest } from '../ui.js';

/** The body paths of `POST /v1/actions` each input stands for: a 422 on one shows beside that input. */
const PATHS = {
  name: ['name'],
  url: ['request.url'],
  method: ['request.method'],
  when: ['schedule', 'scheduled_for'],
  body: ['request.body'],
} as const;

function bodyOf(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: sent as the text it is.
    return text;
  }
}

export function NewAction() {
  const { client } = useConsole();
  const ids = useId();
  const { busy, error, run } = useRequest();
  const submit = (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const field = (k: string) => String(data.get(k) ?? '').trim();
    const when = field('when');
    const body = bodyOf(field('body'));
    return run(async () => {
      const made = await client.actions.create({
        name: field('name'),
        ...(field('when_kind') === 'at' ? { scheduled_for: when } : { schedule: { wait: when } }),
        request: {
          url: field('url'),
          method: field('method') as (typeof HTTP_METHODS)[number],
          ...(body === undefined ? {} : { body }),
        },
      });
      navigate(`actions/${made.action.id}`);
    });
  };
  const form = formFields(error, ids);
  const f = form.each(PATHS);
  return (
    <>
      <BackLink view="actions" text="All actions" />
      <h1>New action</h1>
      <p class="muted">
        A webhook at a moment, with the service's defaults for retries and signing. The API, the SDK and{' '}
        <code>sched actions create</code> offer every other field.
      </p>
      <form class="form" onSubmit={submit} aria-label="New action">
        <FieldInput label="Name" state={f.name} name="name" required maxLength={255} />
        <FieldInput
          label="URL"
          state={f.url}
          name="url"
          type="url"
          required
          placeholder="https://api.example.com/hooks/order"
        />
        <label>
          Method
          <select name="method" {...f.method.props}>
            {HTTP_METHODS.map((m) => (
              <option key={m} value={m} selected={m === 'POST'}>
                {m}
              </option>
            ))}
          </select>
          <FieldError state={f.method} />
        </label>
        <fieldset>
          <legend>When</legend>
          <label>
            <input type="radio" name="when_kind" value="wait" checked /> after a wait (30s, 10m, 2h, 1d)
          </label>
          <label>
            <input type="radio" name="when_kind" value="at" /> at an exact time (ISO 8601, e.g.
            2026-12-01T09:00:00Z)
          </label>
          <FieldInput label="Wait or time" state={f.when} name="when" required defaultValue="10m" />
        </fieldset>
        <label>
          Body (JSON, or text)
          <textarea name="body" rows={4} {...f.body.props} />
          <FieldError state={f.body} />
        </label>
        <ErrorNote error={error} beside={form.beside} />
        <button type="submit" class="primary" disabled={busy}>
          Schedule the action
        </button>
      </form>
    </>
  );
}
