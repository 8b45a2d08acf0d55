import type { GateField } from '@sched/contract';
import { FORM_VALUE_PREFIX } from '../answer.js';

/** The page's form names each typed answer input `values.<name>` (http/answer.ts reads them back). */
const inputName = (f: GateField) => `${FORM_VALUE_PREFIX}${f.name}`;
const inputId = (f: GateField) => `field-${f.name}`;

/** One input of the typed answer, prefilled with its default: what the agent proposed, for the person to change. */
function FieldInput({ f }: { f: GateField }) {
  const id = inputId(f);
  const label = f.label ?? f.name;
  const value = f.default === undefined ? undefined : String(f.default);
  const common = { id, name: inputName(f), required: f.required === true };
  switch (f.type) {
    case 'boolean':
      // Unticked sends only the hidden "false"; ticked sends "false" then "true", and the last counts.
      return (
        <div class="answer-check">
          <input type="hidden" name={inputName(f)} value="false" />
          <input type="checkbox" id={id} name={inputName(f)} value="true" checked={f.default === true} />
          <label for={id}>{label}</label>
        </div>
      );
    case 'enum':
      return (
        <>
          <label for={id}>{label}</label>
          <select {...common}>
            {f.required ? null : <option value="">-</option>}
            {(f.options ?? []).map((o) => (
              <option value={o} selected={o === f.default}>
                {o}
              </option>
            ))}
          </select>
        </>
      );
    case 'text':
      return (
        <>
          <label for={id}>{label}</label>
          <textarea {...common} rows={4} maxlength={f.max_length ?? 5000}>
            {value ?? ''}
          </textarea>
        </>
      );
    case 'integer':
    case 'number':
      return (
        <>
          <label for={id}>{label}</label>
          <input
            {...common}
            type="number"
            inputmode={f.type === 'integer' ? 'numeric' : 'decimal'}
            step={f.type === 'integer' ? '1' : 'any'}
            min={f.min}
            max={f.max}
            value={value}
          />
        </>
      );
    case 'string':
      return (
        <>
          <label for={id}>{label}</label>
          <input {...common} type="text" maxlength={f.max_length ?? 200} value={value} />
        </>
      );
  }
}

/** The typed answer (`gate.fields`) as form inputs; the browser checks them before a confirm. */
export function AnswerFields({ fields }: { fields: readonly GateField[] }) {
  if (fields.length === 0) return null;
  return (
    <fieldset class="answer-fields">
      <legend>Check or change before you answer</legend>
      {fields.map((f) => (
        <FieldInput f={f} />
      ))}
    </fieldset>
  );
}

/** "Approve, and allow the same for ...": the durations offered, up to the gate's `grant.max_ttl`. */
export function GrantChoice({
  grant,
}: {
  grant: { key: string; choices: { value: string; label: string }[] } | undefined;
}) {
  if (!grant || grant.choices.length === 0) return null;
  return (
    <>
      <label for="grant_ttl">Also allow the same ({grant.key}) without asking for</label>
      <select id="grant_ttl" name="grant_ttl" aria-describedby="grant-hint">
        <option value="">No: ask me every time</option>
        {grant.choices.map((c) => (
          <option value={c.value}>{c.label}</option>
        ))}
      </select>
      <p class="hint" id="grant-hint">
        Counts only when you approve. It can be revoked at any time.
      </p>
    </>
  );
}

const GRANT_STEPS = [
  { value: '15m', label: '15 minutes', ms: 15 * 60_000 },
  { value: '1h', label: '1 hour', ms: 3_600_000 },
  { value: '4h', label: '4 hours', ms: 4 * 3_600_000 },
  { value: '1d', label: '1 day', ms: 86_400_000 },
  { value: '7d', label: '7 days', ms: 7 * 86_400_000 },
  { value: '30d', label: '30 days', ms: 30 * 86_400_000 },
];

/** The grant durations a page offers: the usual steps below the gate's maximum, and the maximum itself. */
export function grantChoices(maxTtl: string, maxMs: number): { value: string; label: string }[] {
  const below = GRANT_STEPS.filter((s) => s.ms < maxMs).map(({ value, label }) => ({ value, label }));
  const same = GRANT_STEPS.find((s) => s.ms === maxMs);
  return [...below, same ? { value: same.value, label: same.label } : { value: maxTtl, label: maxTtl }];
}
