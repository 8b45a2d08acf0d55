// An approval asked from the console: who, what, when, how long and how many must agree; channels, reminders,
// escalation, typed fields and the request run once confirmed stay with the API, the SDK and the CLI.
import {
  CONFIRMATION_MODE,
  type ConfirmationMode,
  SCHEDULE_PRESETS,
  type SchedulePreset,
} from '@sched/contract';
import type { ApprovalInput } from '@sched/sdk';
import { useId, useState } from 'preact/hooks';
import { navigate } from '../router.js';
import {
  BackLink,
  ErrorNote,
  FieldError,
  FieldInput,
  formFields,
  useConsole,
  useLoad,
  useRequest,
  words,
} from '../ui.js';

type WhenKind = 'wait' | 'preset' | 'at';

/** The body paths of `POST /v1/actions` each input stands for: a 422 on one shows beside that input. */
const PATHS = {
  name: ['name'],
  recipients: ['gate.recipients', 'gate.channels'],
  message: ['gate.message'],
  when: ['schedule', 'scheduled_for'],
  timeout: ['gate.timeout'],
  mode: ['gate.confirmation_mode'],
  min: ['gate.min_approvals', 'gate.required_recipients'],
  buttons: ['gate.buttons'],
} as const;

/** Recipients as typed: one a line or separated by commas, blanks dropped. */
function recipientsOf(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((r) => r.trim())
    .filter(Boolean);
}

export function NewApproval() {
  const { client } = useConsole();
  const ids = useId();
  const { busy, error, run } = useRequest();
  const [kind, setKind] = useState<WhenKind>('wait');
  const [mode, setMode] = useState<ConfirmationMode>('first_response');
  const [recipients, setRecipients] = useState('');
  // The account's contacts, offered by name: a pick adds its `contact:<id>:email|phone` line.
  const contacts = useLoad((c) => c.contacts.list().catch(() => []), []);
  const references = (contacts.data ?? []).flatMap((c) => [
    ...(c.email ? [{ ref: `contact:${c.id}:email`, label: `${c.name}: email ${c.email}` }] : []),
    ...(c.phone ? [{ ref: `contact:${c.id}:phone`, label: `${c.name}: SMS ${c.phone}` }] : []),
  ]);

  const submit = (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const text = (k: string) => String(data.get(k) ?? '').trim();
    const when = text('when');
    const confirm = text('confirm_label');
    const decline = text('decline_label');
    const input: ApprovalInput = {
      to: recipientsOf(text('recipients')),
      message: text('message'),
      ...(text('name') ? { name: text('name') } : {}),
      ...(kind === 'at'
        ? { scheduledFor: when }
        : { schedule: kind === 'preset' ? { preset: when as SchedulePreset } : { wait: when } }),
      ...(text('timeout') ? { timeout: text('timeout') } : {}),
      confirmationMode: mode,
      ...(mode === 'quorum' && text('min_approvals') ? { minApprovals: Number(text('min_approvals')) } : {}),
      // Both labels or neither: the API takes the pair.
      ...(confirm || decline ? { buttons: [confirm, decline] as [string, string] } : {}),
    };
    return run(async () => {
      const made = await client.approvals.create(input);
      navigate(`actions/${made.action.id}`);
    });
  };

  const form = formFields(error, ids);
  const f = form.each(PATHS);
  const presets = `${ids}-presets`;
  return (
    <>
      <BackLink view="approvals" text="Approvals waiting" />
      <h1>New approval</h1>
      <p class="muted">
        A question sent at a moment to the people who answer it, through links that need no login. The API,
        the SDK and <code>sched approvals create</code> offer every other field (channels, reminders,
        escalation, typed fields, the request run once confirmed).
      </p>
      <form class="form" onSubmit={submit} aria-label="New approval" noValidate>
        <FieldInput label="Name (optional)" state={f.name} name="name" maxLength={255} />
        <label>
          Recipients: emails, E.164 phones or contact:&lt;id&gt;:email, one a line
          <textarea
            name="recipients"
            rows={3}
            required
            value={recipients}
            onInput={(e) => setRecipients(e.currentTarget.value)}
            {...f.recipients.props}
          />
          <FieldError state={f.recipients} />
        </label>
        {references.length > 0 && (
          <label>
            Add a contact
            <select
              value=""
              onChange={(e) => {
                const ref = e.currentTarget.value;
                if (ref) setRecipients((r) => (r.trim() ? `${r.trimEnd()}\n${ref}` : ref));
              }}
            >
              <option value="">choose a contact…</option>
              {references.map((r) => (
                <option key={r.ref} value={r.ref}>
                  {r.label}
                </option>
              ))}
            </select>
          </label>
        )}
        <label>
          Message
          <textarea name="message" rows={4} required maxLength={5000} {...f.message.props} />
          <FieldError state={f.message} />
        </label>
        <fieldset>
          <legend>When it is sent</legend>
          {(
            [
              ['wait', 'after a wait (30s, 10m, 2h, 1d)'],
              ['preset', `at a preset (${SCHEDULE_PRESETS.slice(0, 3).join(', ')}…)`],
              ['at', 'at an exact time (ISO 8601, e.g. 2026-12-01T09:00:00Z)'],
            ] as const
          ).map(([value, label]) => (
            <label key={value}>
              <input
                type="radio"
                name="when_kind"
                value={value}
                checked={kind === value}
                onChange={() => setKind(value)}
              />{' '}
              {label}
            </label>
          ))}
          <FieldInput
            label="Wait, preset or time"
            state={f.when}
            name="when"
            required
            defaultValue="1m"
            list={kind === 'preset' ? presets : undefined}
          />
          <datalist id={presets}>
            {SCHEDULE_PRESETS.map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
        </fieldset>
        <FieldInput
          label="Timeout: how long the links answer (default 7d)"
          state={f.timeout}
          name="timeout"
          placeholder="7d"
        />
        <fieldset>
          <legend>Who must agree</legend>
          <label>
            Mode
            <select
              name="confirmation_mode"
              value={mode}
              onChange={(e) => setMode((e.currentTarget as HTMLSelectElement).value as ConfirmationMode)}
              {...f.mode.props}
            >
              {Object.values(CONFIRMATION_MODE).map((m) => (
                <option key={m} value={m}>
                  {words(m)}
                </option>
              ))}
            </select>
            <FieldError state={f.mode} />
          </label>
          {mode === 'quorum' && (
            <FieldInput
              label="Confirmations needed (2 to the number of recipients)"
              state={f.min}
              name="min_approvals"
              type="number"
              min={2}
              step={1}
              required
            />
          )}
        </fieldset>
        <fieldset>
          <legend>Buttons (optional; both or neither)</legend>
          <label>
            Confirm label
            <input name="confirm_label" maxLength={40} placeholder="Confirm" {...f.buttons.props} />
          </label>
          <label>
            Decline label
            <input name="decline_label" maxLength={40} placeholder="Decline" {...f.buttons.props} />
          </label>
          <FieldError state={f.buttons} />
        </fieldset>
        <ErrorNote error={error} beside={form.beside} />
        <button type="submit" class="primary" disabled={busy}>
          Ask for approval
        </button>
      </form>
    </>
  );
}
