import type { DestinationTestResult } from '@sched/sdk';
import { useId, useState } from 'preact/hooks';
import { ErrorNote, FieldError, formFields, useConsole } from '../ui.js';

/** What a test-send came back with, in a sentence: the status or why none came, the time, the signature. */
function outcomeOf(r: DestinationTestResult): string {
  const signed = r.signed ? 'signed' : 'unsigned (the account has no signing secret)';
  return r.status === null
    ? `No answer from ${r.url} after ${r.duration_ms} ms: ${r.error ?? 'unknown error'}.`
    : `${r.url} answered ${r.status} in ${r.duration_ms} ms (${signed} request).`;
}

/**
 * One signed `sched.test` request to the destination's origin, now (`POST /v1/destinations/{origin}/test`), and
 * what it answered: how an operator checks a receiver (and its signature check) before or after an outage.
 */
export function TestSend({ origin }: { origin: string }) {
  const { client } = useConsole();
  const ids = useId();
  const [result, setResult] = useState<DestinationTestResult>();
  const [error, setError] = useState<Error>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult(
        await client.destinations.test(origin, { path: String(data.get('path') ?? '').trim() || '/' }),
      );
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  const form = formFields(error, ids);
  const path = form.at('path', ['path']);
  const ok = result && result.status !== null && result.status >= 200 && result.status < 300;
  return (
    <section aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Test-send</h2>
      <p class="muted">
        One signed <code>sched.test</code> request, now: not an action, no quota spent, whatever the pause or
        the circuit says. One test per destination every 5 seconds.
      </p>
      <form class="filters" aria-label="Test-send" onSubmit={submit} noValidate>
        <label>
          Path on {origin}
          <input name="path" defaultValue="/" {...path.props} />
          <FieldError state={path} />
        </label>
        <button type="submit" disabled={busy}>
          Send a test request
        </button>
      </form>
      <ErrorNote error={error} beside={form.beside} />
      {result && (
        <div class={ok ? 'note' : 'note error'} role="status">
          <p>{outcomeOf(result)}</p>
          {result.response_excerpt && (
            <section aria-label="The host's answer">
              {/* biome-ignore lint/a11y/noNoninteractiveTabindex: keyboard users scroll it; axe requires the focus stop */}
              <pre class="json" tabIndex={0}>
                {result.response_excerpt}
              </pre>
            </section>
          )}
        </div>
      )}
    </section>
  );
}
