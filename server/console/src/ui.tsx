import type { SchedClient } from '@sched/sdk';
import { SchedApiError } from '@sched/sdk';
import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useId, useRef, useState } from 'preact/hooks';
import { href, navigate } from './router.js';
import type { Session } from './session.js';

export interface Console {
  client: SchedClient;
  session: Session;
  /** Whether the key behind the session may write: a read-scope key gets no write buttons at all. */
  canWrite: boolean;
  /** The session ended under the page (expired, signed out elsewhere, key revoked): back to sign-in. */
  expired(): void;
}

export const ConsoleContext = createContext<Console | null>(null);

export function useConsole(): Console {
  const c = useContext(ConsoleContext);
  if (!c) throw new Error('outside the console');
  return c;
}

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload(): void;
}

/** Polling of a live list: first after this long, doubled while nothing changes or a read fails, up to the cap. */
const LIVE_FIRST_MS = 5000;
const LIVE_CAP_MS = 60_000;

/**
 * Runs `load` with the console's client whenever `deps` change; a 401 ends the session in the page. A `live` load
 * reads again by itself: soon after a change, less and less often while nothing changes (or the server fails), and
 * not at all while the tab is hidden (it reads at once when the tab shows again).
 */
export function useLoad<T>(
  load: (client: SchedClient) => Promise<T>,
  deps: unknown[],
  options: { live?: boolean } = {},
): Loaded<T> {
  const { client, expired } = useConsole();
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const last = useRef<string | undefined>(undefined);
  const delay = useRef(LIVE_FIRST_MS);
  // The caller names what the load depends on (`deps`); `tick` is a reload.
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load(client).then(
      (data) => {
        if (!live) return;
        // Only a live load paces itself by whether its data changed: the others skip serializing it.
        if (options.live) {
          const seen = JSON.stringify(data);
          delay.current = seen === last.current ? Math.min(delay.current * 2, LIVE_CAP_MS) : LIVE_FIRST_MS;
          last.current = seen;
        }
        setState({ data, loading: false });
      },
      (error: Error) => {
        if (!live) return;
        if (error instanceof SchedApiError && error.status === 401) expired();
        delay.current = Math.min(delay.current * 2, LIVE_CAP_MS);
        setState((s) => ({ data: s.data, error, loading: false }));
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    if (!options.live || state.loading) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(timer);
      if (!document.hidden) timer = setTimeout(reload, delay.current);
    };
    const onVisibility = () => {
      if (document.hidden) clearTimeout(timer);
      else {
        delay.current = LIVE_FIRST_MS;
        reload();
      }
    };
    arm();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [options.live, state.loading, reload]);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/**
 * A request the page waits on (a form's submit, a dialog's confirm): `busy` while it runs, to hold its button
 * down; `error` once it failed, until it runs again.
 */
export function useRequest() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const run = async (request: () => Promise<unknown>): Promise<void> => {
    setBusy(true);
    setError(undefined);
    try {
      await request();
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}

/** Whether an error path is `prefix` or lies under it (`gate.recipients.0` under `gate.recipients`). */
function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}.`);
}

/** The messages of a 422 for the fields under any of `paths`, with each one's own path when it is deeper. */
function fieldMessages(error: Error | undefined, paths: readonly string[]): string[] {
  if (!(error instanceof SchedApiError)) return [];
  return Object.entries(error.errors).flatMap(([path, messages]) => {
    const prefix = paths.find((p) => under(path, p));
    if (prefix === undefined) return [];
    const where = path === prefix ? '' : `${path.slice(prefix.length + 1)}: `;
    return messages.map((m) => `${where}${m}`);
  });
}

/** One input's share of a 422: the id of its `FieldError`, the messages, and the attributes that tie them. */
export interface FieldState {
  id: string;
  messages: string[];
  props: { 'aria-invalid'?: true; 'aria-describedby'?: string };
}

/**
 * A form's inputs against a 422 of its request: `at(key, paths)` for each input, naming the body paths it stands
 * for, gives what its `FieldError` shows and the attributes that mark the input; `beside` collects those paths for
 * the form's `ErrorNote`, which lists only the rest.
 */
export function formFields(error: Error | undefined, idPrefix: string) {
  const beside: string[] = [];
  const at = (key: string, paths: readonly string[]): FieldState => {
    beside.push(...paths);
    const id = `${idPrefix}-${key}-error`;
    const messages = fieldMessages(error, paths);
    return {
      id,
      messages,
      props: messages.length > 0 ? { 'aria-invalid': true, 'aria-describedby': id } : {},
    };
  };
  /** `at` for each input of a table of them: `{ name: ['name'], when: ['schedule', 'scheduled_for'] }`. */
  const each = <K extends string>(table: Record<K, readonly string[]>): Record<K, FieldState> =>
    Object.fromEntries(
      Object.entries<readonly string[]>(table).map(([key, paths]) => [key, at(key, paths)]),
    ) as Record<K, FieldState>;
  return { beside, at, each };
}

/**
 * A 422's messages beside the input they are about: render it right after the input given `state.props`. Inside
 * the input's label it must not become part of the input's name: hidden from the name, it is still the input's
 * description (`aria-describedby` reads hidden text), so a screen reader says it once, after the name.
 */
export function FieldError({ state }: { state: FieldState }) {
  if (state.messages.length === 0) return null;
  return (
    <span class="field-error" id={state.id} aria-hidden="true">
      {state.messages.join('; ')}
    </span>
  );
}

/** A form's labelled input, marked by its share of a 422 (`state`), whose messages follow it. */
export function FieldInput({
  label,
  state,
  ...input
}: { label: ComponentChildren; state: FieldState } & InputHTMLAttributes) {
  return (
    <label>
      {label}
      <input {...input} {...state.props} />
      <FieldError state={state} />
    </label>
  );
}

/**
 * An error as the server gave it: its status, its message and a 422's fields, with Retry when the read may work
 * again. `beside`: the fields a form shows next to their inputs (`FieldError`), left out of the list here.
 */
export function ErrorNote({
  error,
  onRetry,
  beside = [],
}: {
  error: Error | undefined;
  onRetry?: () => void;
  beside?: readonly string[];
}) {
  if (!error) return null;
  const all = error instanceof SchedApiError ? Object.entries(error.errors) : [];
  const fields = all.filter(([path]) => !beside.some((p) => under(path, p)));
  return (
    <div class="note error" role="alert">
      <strong>{error instanceof SchedApiError ? `HTTP ${error.status}: ` : ''}</strong>
      {/* Every field is marked beside its input: the message, which names the first of them, would repeat it. */}
      {fields.length < all.length && fields.length === 0 ? '' : error.message}
      {error instanceof SchedApiError && error.status === 429 && error.retryAfterSeconds !== null && (
        <> Too soon: try again in {error.retryAfterSeconds} s.</>
      )}
      {fields.length < all.length && <> The fields marked above say what to change.</>}
      {fields.length > 0 && (
        <ul>
          {fields.map(([path, messages]) => (
            <li key={path}>
              <code>{path}</code>: {messages.join('; ')}
            </li>
          ))}
        </ul>
      )}
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

/** Grey lines where the content will be, said in words to assistive technology. */
export function Loading({ what }: { what: string }) {
  return (
    <div class="skeleton" role="status" aria-busy="true">
      <span class="sr-only">Loading {what}…</span>
      <span class="skeleton-line" />
      <span class="skeleton-line" />
      <span class="skeleton-line short" />
    </div>
  );
}

/** A list with nothing in it: what that means, and what to do next (a link or a button in `children`). */
export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

/** A word on what just happened (a reminder sent, a test queued), said to assistive technology as it shows. */
export function Notice({ children }: { children: ComponentChildren }) {
  if (!children) return null;
  return (
    <p class="note" role="status">
      {children}
    </p>
  );
}

/**
 * What a load gave: its error (with Retry), a loading line while there is nothing yet, and `children` drawn from
 * the data once there is some (still shown when a later read fails).
 */
export function WhenLoaded<T>(props: {
  loaded: Pick<Loaded<T>, 'data' | 'error' | 'reload'>;
  what: string;
  children: (data: T) => ComponentChildren;
}) {
  const { data, error, reload } = props.loaded;
  return (
    <>
      <ErrorNote error={error} onRetry={reload} />
      {data === undefined ? !error && <Loading what={props.what} /> : props.children(data)}
    </>
  );
}

/** The link above a page back to the list or view it came from. */
export function BackLink({ view, text }: { view: string; text: string }) {
  return (
    <p>
      <a href={href(view)}>{text}</a>
    </p>
  );
}

/** A snake_case value (a state, a channel, a mode) as the words people read. */
export function words(value: string): string {
  return value.replaceAll('_', ' ');
}

/**
 * A filter's choice among `values`, "any" first (the empty value), opened on `selected` (from the URL). Keyed on the
 * selection: Preact sets no defaultValue on a select, so a new URL must make a new element.
 */
export function AnySelect(props: { name: string; values: readonly string[]; selected: string | undefined }) {
  return (
    <select name={props.name} key={props.selected ?? ''}>
      <option value="">any</option>
      {props.values.map((v) => (
        <option key={v} value={v} selected={v === props.selected}>
          {words(v)}
        </option>
      ))}
    </select>
  );
}

/**
 * A resource's page: the link back to its list, then what its load gave: the error (with Retry), a loading line, or
 * its heading (its name and state) and `children`, drawn from the data.
 */
export function DetailPage<T>(props: {
  /** The list's view (`chains`) and the link's words. */
  back: { view: string; text: string };
  loaded: Pick<Loaded<T>, 'data' | 'error' | 'reload'>;
  /** A newer copy than the load's that the page holds (a destination after a change); the load's data otherwise. */
  data?: T | undefined;
  what: string;
  /** The resource's name in the page's `h1`, before its state. */
  name: (data: T) => ComponentChildren;
  state: (data: T) => string;
  children: (data: T) => ComponentChildren;
}) {
  const { loaded } = props;
  return (
    <>
      <BackLink {...props.back} />
      <WhenLoaded loaded={{ ...loaded, data: props.data ?? loaded.data }} what={props.what}>
        {(data) => (
          <>
            <h1>
              {props.name(data)} <Status status={props.state(data)} />
            </h1>
            {props.children(data)}
          </>
        )}
      </WhenLoaded>
    </>
  );
}

/**
 * A list's filters, carried by the view's URL (a view is shared by its link): applying puts each of `names`, trimmed,
 * in the URL and starts again at the first page. Clear goes back to the bare view where there are several filters
 * to empty; a lone one is cleared by choosing "any".
 */
export function FilterForm(props: {
  /** The view whose list it filters (`actions`). */
  view: string;
  label: string;
  names: readonly string[];
  /** What the list applies to a filter left out: chosen, it is left out of the URL too. */
  defaults?: Readonly<Record<string, string>>;
  children: ComponentChildren;
}) {
  const several = props.names.length > 1;
  return (
    <form
      class="filters"
      aria-label={props.label}
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        const query: Record<string, string> = {};
        for (const name of props.names) {
          const value = String(data.get(name) ?? '').trim();
          query[name] = value === props.defaults?.[name] ? '' : value;
        }
        navigate(props.view, query);
      }}
    >
      {props.children}
      <button type="submit" class="primary">
        {several ? 'Apply filters' : 'Apply filter'}
      </button>
      {several && <a href={href(props.view)}>Clear</a>}
    </form>
  );
}

/** A filter typed as text, opened on its value in the URL. */
export function FilterText(props: {
  name: string;
  label: string;
  value: string | undefined;
  placeholder?: string;
}) {
  return (
    <label>
      {props.label}
      <input name={props.name} defaultValue={props.value ?? ''} placeholder={props.placeholder} />
    </label>
  );
}

/** A list's filter by one state (chains, bulk operations). */
export function StateFilter(props: {
  /** The view whose list it filters (`chains`). */
  view: string;
  label: string;
  states: readonly string[];
  selected: string | undefined;
}) {
  return (
    <FilterForm view={props.view} label={props.label} names={['status']}>
      <label>
        State
        <AnySelect name="status" values={props.states} selected={props.selected} />
      </label>
    </FilterForm>
  );
}

/** A state as a coloured label (the colour repeats the word; it never replaces it). */
export function Status({ status }: { status: string }) {
  return <span class={`status status-${status}`}>{words(status)}</span>;
}

/** The state of what is switched on or off as a whole (a template, an alert rule), as `Status` shows it. */
export function activeState(on: boolean): 'active' | 'inactive' {
  return on ? 'active' : 'inactive';
}

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

/** An instant: relative text, the exact UTC time on hover and for assistive technology. */
export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span class="muted">—</span>;
  const t = new Date(at);
  const diff = t.getTime() - Date.now();
  const [unit, ms] = UNITS.find(([, ms]) => Math.abs(diff) >= ms) ?? ['second', 1000];
  return (
    <time dateTime={at} title={t.toISOString()}>
      {relative.format(Math.round(diff / ms), unit)}
    </time>
  );
}

export function Ms({ ms }: { ms: number | null | undefined }) {
  if (ms === null || ms === undefined) return <span class="muted">—</span>;
  return <span>{ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`}</span>;
}

/**
 * A write behind a confirmation: a modal dialog (focus moves into it, Escape closes it) says what will happen; only
 * its confirm button acts. Rendered only for keys with the write scope.
 */
export function ConfirmButton(props: {
  label: string;
  /** Said after the label to assistive technology, where one list holds many such buttons ("Remind" whom). */
  context?: string;
  title: string;
  children: ComponentChildren;
  confirmLabel?: string;
  danger?: boolean;
  onConfirm: () => Promise<unknown>;
  onDone?: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const { busy, error, run } = useRequest();
  const confirm = () =>
    run(async () => {
      await props.onConfirm();
      dialog.current?.close();
      props.onDone?.();
    });
  const titleId = useId();
  return (
    <>
      <button
        type="button"
        class={props.danger ? 'danger' : 'primary'}
        onClick={() => dialog.current?.showModal()}
      >
        {props.label}
        {props.context && <span class="sr-only"> {props.context}</span>}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId}>
        <h2 id={titleId}>{props.title}</h2>
        <div>{props.children}</div>
        <ErrorNote error={error} />
        <div class="buttons">
          <button type="button" onClick={() => dialog.current?.close()} disabled={busy}>
            Keep it
          </button>
          <button type="button" class={props.danger ? 'danger' : 'primary'} onClick={confirm} disabled={busy}>
            {props.confirmLabel ?? props.label}
          </button>
        </div>
      </dialog>
    </>
  );
}

/** How long a pause lasts, in hours, as the pause dialogs offer it; 0 waits for a resume. */
const PAUSE_HOURS: readonly (readonly [hours: number, label: string])[] = [
  [0, 'until resumed'],
  [1, '1 hour'],
  [4, '4 hours'],
  [24, '1 day'],
  [168, '7 days'],
];

/** A pause dialog's choice of how long the pause lasts (`PAUSE_HOURS`); each caller says it as its request does. */
export function PauseLength({ hours, onChange }: { hours: number; onChange: (hours: number) => void }) {
  return (
    <label>
      Pause{' '}
      <select value={String(hours)} onChange={(e) => onChange(Number(e.currentTarget.value))}>
        {PAUSE_HOURS.map(([h, label]) => (
          <option key={h} value={String(h)}>
            {label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** What goes before a figure the server estimated rather than counted (past the contract's EXACT_TOTAL_LIMIT). */
export function aboutIf(estimated: boolean): string {
  return estimated ? 'about ' : '';
}

/** Copies text to the clipboard, saying so where a screen reader hears it. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={() =>
        navigator.clipboard.writeText(text).then(
          () => setDone(true),
          () => setDone(false),
        )
      }
    >
      {label}
      <span aria-live="polite" class="copied">
        {done ? ' — copied' : ''}
      </span>
    </button>
  );
}

export function Json({ value, label }: { value: unknown; label: string }) {
  return (
    // A scrolling box must be reachable by keyboard (axe: scrollable-region-focusable): a named section holds it.
    <section aria-label={label}>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: keyboard users scroll it; axe requires the focus stop */}
      <pre class="json" tabIndex={0}>
        {JSON.stringify(value, null, 2)}
      </pre>
    </section>
  );
}
