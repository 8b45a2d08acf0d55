import { RECURRENCE_UNITS, SCHEDULE_PRESETS, type SchedulePreview } from '@sched/contract';
import type { SchedulePreviewBody } from '@sched/contract';
import { useState } from 'preact/hooks';
import { ErrorNote, useConsole, words } from '../ui.js';
import { DataTable } from '../ui/table.js';

const UNIT_NAMES: Record<(typeof RECURRENCE_UNITS)[number], string> = {
  m: 'minutes',
  h: 'hours',
  d: 'days',
  w: 'weeks',
  M: 'months',
};

/** The form's fields as the preview body: the same schedule fields `POST /v1/actions` takes. */
function bodyOf(data: FormData): SchedulePreviewBody {
  const text = (k: string) => String(data.get(k) ?? '').trim();
  const when = text('when');
  const body: SchedulePreviewBody = { count: Number(text('count') || 10) };
  if (text('timezone')) body.timezone = text('timezone');
  if (when === 'wait') body.schedule = { wait: text('wait') };
  else if (when === 'preset') body.schedule = { preset: text('preset') as (typeof SCHEDULE_PRESETS)[number] };
  else body.scheduled_for = text('scheduled_for');
  if (text('every')) {
    body.recurrence = {
      frequency: Number(text('every')),
      unit: text('unit') as (typeof RECURRENCE_UNITS)[number],
      end_type: 'never',
    };
  }
  // A delivery window: the runs are shown where they really fire (deferred or skipped).
  const [start, end] = [text('window_start'), text('window_end')];
  if (start && end) {
    body.delivery_window = {
      start,
      end,
      outside: text('window_outside') === 'skip' ? 'skip' : 'defer',
      ...(text('window_calendar') ? { calendar: text('window_calendar') } : {}),
    };
  }
  return body;
}

/** `POST /v1/schedules/preview`: when a schedule would run, with DST effects and warnings; nothing is created. */
export function SchedulePreviewPanel() {
  const { client } = useConsole();
  const [when, setWhen] = useState('wait');
  const [result, setResult] = useState<SchedulePreview>();
  const [error, setError] = useState<Error>();
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      setResult(await client.schedules.preview(bodyOf(new FormData(e.currentTarget as HTMLFormElement))));
    } catch (err) {
      setResult(undefined);
      setError(err as Error);
    }
  };
  return (
    <>
      <h1>Schedule preview</h1>
      <p class="muted">When a schedule would run, in its timezone, before you create anything.</p>
      <form class="filters" onSubmit={submit} aria-label="Schedule to preview">
        <label>
          Starts
          <select name="when" value={when} onChange={(e) => setWhen(e.currentTarget.value)}>
            <option value="wait">after a wait</option>
            <option value="preset">at a preset</option>
            <option value="scheduled_for">at an exact time</option>
          </select>
        </label>
        {when === 'wait' && (
          <label>
            Wait
            <input
              name="wait"
              defaultValue="1h"
              required
              pattern="\d+[smhdw]"
              title="e.g. 30s, 10m, 2h, 7d, 1w"
            />
          </label>
        )}
        {when === 'preset' && (
          <label>
            Preset
            <select name="preset">
              {SCHEDULE_PRESETS.map((p) => (
                <option key={p} value={p}>
                  {words(p)}
                </option>
              ))}
            </select>
          </label>
        )}
        {when === 'scheduled_for' && (
          <label>
            Time (ISO 8601)
            <input name="scheduled_for" required placeholder="2027-03-14T02:30:00-05:00" />
          </label>
        )}
        <label>
          Timezone
          <input name="timezone" defaultValue={Intl.DateTimeFormat().resolvedOptions().timeZone} />
        </label>
        <label>
          Repeat every
          <input name="every" type="number" min={1} inputMode="numeric" />
        </label>
        <label>
          Unit
          <select name="unit">
            {RECURRENCE_UNITS.map((u) => (
              <option key={u} value={u} selected={u === 'd'}>
                {UNIT_NAMES[u]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Window opens
          <input name="window_start" type="time" />
        </label>
        <label>
          Window closes
          <input name="window_end" type="time" />
        </label>
        <label>
          Closed days
          <input name="window_calendar" placeholder="holidays:US or a calendar id" />
        </label>
        <label>
          Outside the window
          <select name="window_outside">
            <option value="defer">defer to the opening</option>
            <option value="skip">skip (a series)</option>
          </select>
        </label>
        <label>
          Runs to list
          <input name="count" type="number" min={1} max={100} defaultValue="10" />
        </label>
        <button type="submit" class="primary">
          Preview
        </button>
      </form>
      <ErrorNote error={error} />
      {result && (
        <section aria-labelledby="runs-title">
          <h2 id="runs-title">
            Runs in {result.timezone} <span class="muted">(tzdata {result.tzdata})</span>
          </h2>
          {result.warnings.length > 0 && (
            <ul class="note">
              {result.warnings.map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          )}
          <DataTable
            rows={result.occurrences}
            rowKey={(o) => `${o.at}-${o.dst ?? ''}-${o.window ?? ''}`}
            columns={[
              { label: 'Wall time', cell: (o) => o.local.replace('T', ' ') },
              { label: 'Offset', cell: (o) => o.offset },
              { label: 'UTC', cell: (o) => <code>{o.at}</code> },
              { label: 'Daylight saving', cell: (o) => (o.dst ? words(o.dst) : '—') },
              {
                label: 'Window',
                cell: (o) => (o.window ? `${o.window}${o.due ? ` (due ${o.due})` : ''}` : '—'),
              },
            ]}
          />
        </section>
      )}
    </>
  );
}
