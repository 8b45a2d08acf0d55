import type { FieldValue, GateField, GateInput, ResponseDecision } from '@sched/contract';
import { parseDuration } from '../schedule/duration.js';

/** The longest value of a one-line `string` and of a `text` when the field sets no `max_length`. */
const DEFAULT_MAX_LENGTH = { string: 200, text: 5000 } as const;

type Checked = { ok: true; value: FieldValue | null } | { ok: false; message: string };

const BOOLEAN_WORDS: Readonly<Record<string, boolean>> = {
  true: true,
  on: true,
  '1': true,
  false: false,
  '0': false,
};

/**
 * One value against its field. A browser form sends every value as text, so numbers and booleans are also read from
 * their text; an empty value is no value. Used for what an approver answers and for a field's own `default`.
 */
export function checkFieldValue(field: GateField, raw: unknown): Checked {
  // A checkbox sends its hidden "false" and, when ticked, "true" after it: the last one counts.
  const v = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (v === undefined || v === null || v === '') return { ok: true, value: null };
  switch (field.type) {
    case 'string':
    case 'text': {
      if (typeof v !== 'string') return { ok: false, message: 'must be text' };
      const text = v.replace(/\r\n?/g, '\n');
      if (field.type === 'string' && text.includes('\n')) return { ok: false, message: 'must be one line' };
      const max = field.max_length ?? DEFAULT_MAX_LENGTH[field.type];
      if (text.length > max) return { ok: false, message: `must be at most ${max} characters` };
      return { ok: true, value: text };
    }
    case 'integer':
    case 'number': {
      const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
      if (!Number.isFinite(n))
        return { ok: false, message: `must be ${field.type === 'integer' ? 'an integer' : 'a number'}` };
      if (field.type === 'integer' && !Number.isInteger(n))
        return { ok: false, message: 'must be an integer' };
      if (field.min !== undefined && n < field.min)
        return { ok: false, message: `must be at least ${field.min}` };
      if (field.max !== undefined && n > field.max)
        return { ok: false, message: `must be at most ${field.max}` };
      return { ok: true, value: n };
    }
    case 'boolean': {
      if (typeof v === 'boolean') return { ok: true, value: v };
      const b = typeof v === 'string' ? BOOLEAN_WORDS[v.toLowerCase()] : undefined;
      return b === undefined ? { ok: false, message: 'must be true or false' } : { ok: true, value: b };
    }
    case 'enum':
      return typeof v === 'string' && (field.options ?? []).includes(v)
        ? { ok: true, value: v }
        : { ok: false, message: `must be one of ${(field.options ?? []).join(', ')}` };
  }
}

/** The `default`s of a gate's fields that do not fit their own field, by path (`gate.fields.N.default`). */
export function defaultErrors(fields: readonly GateField[]): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  fields.forEach((f, i) => {
    if (f.default === undefined) return;
    const checked = checkFieldValue(f, f.default);
    if (!checked.ok) errors[`gate.fields.${i}.default`] = [checked.message];
  });
  return errors;
}

export type AnsweredValues =
  | { ok: true; values: Record<string, FieldValue> | null }
  | { ok: false; errors: Record<string, string[]> };

/**
 * The typed answer of a confirm or a decline: each field's value as sent, or its default when left out, checked
 * against the field (422 paths `values.<name>`). A confirm needs every required field; a decline needs none. A
 * snooze answers nothing, and a gate without fields takes no values.
 */
export function answerValues(
  fields: readonly GateField[],
  sent: Readonly<Record<string, unknown>> | undefined,
  decision: ResponseDecision,
): AnsweredValues {
  const errors: Record<string, string[]> = {};
  const given = sent ?? {};
  const known = new Set(fields.map((f) => f.name));
  for (const name of Object.keys(given))
    if (!known.has(name)) errors[`values.${name}`] = ['is not a field of this request'];
  if (decision === 'snooze' || fields.length === 0)
    return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, values: null };
  const values: Record<string, FieldValue> = {};
  for (const f of fields) {
    const checked = checkFieldValue(f, Object.hasOwn(given, f.name) ? given[f.name] : f.default);
    if (!checked.ok) errors[`values.${f.name}`] = [checked.message];
    else if (checked.value !== null) values[f.name] = checked.value;
    else if (f.required && decision === 'confirm') errors[`values.${f.name}`] = ['is required'];
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, values };
}

const VALUE_REFERENCE = /\{\{\s*values\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const WHOLE_REFERENCE = /^\{\{\s*values\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

/**
 * A post-approval request's body with the approver's typed answer in, as templates fill placeholders: a string that
 * is only `{{values.<name>}}` becomes the value itself (a number stays a number in JSON), anywhere else the value's
 * text; a field left empty is null, or no text. Only the body is filled: the URL, and so its host, never is.
 */
export function fillValues(body: unknown, values: Readonly<Record<string, FieldValue>>): unknown {
  const answerOf = (name: string) => (Object.hasOwn(values, name) ? values[name]! : null);
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      const whole = WHOLE_REFERENCE.exec(node);
      if (whole) return answerOf(whole[1]!);
      return node.replace(VALUE_REFERENCE, (_m, name: string) => {
        const v = answerOf(name);
        return v === null ? '' : String(v);
      });
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object')
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
    return node;
  };
  return walk(body);
}

/** The longest standing grant a gate may offer. */
const MAX_GRANT_MS = 30 * 24 * 3600 * 1000;

/**
 * What a gate asks of agents' approvers: its typed answer fields (each `default` checked by the rule that checks
 * answers) and the standing grant it may offer (`max_ttl` a duration up to 30 days). Reports through `fail` with
 * paths under `gate.`.
 */
export function agentParts(
  g: Pick<GateInput, 'fields' | 'grant'>,
  fail: (field: string, message: string) => void,
): { fields: GateField[]; grant: { key: string; max_ttl: string; max_ttl_ms: number } | null } {
  const fields = g.fields ?? [];
  for (const [path, messages] of Object.entries(defaultErrors(fields)))
    for (const m of messages) fail(path, m);
  if (!g.grant) return { fields, grant: null };
  const ms = parseDuration(g.grant.max_ttl);
  if (ms === null || ms <= 0 || ms > MAX_GRANT_MS) {
    fail('gate.grant.max_ttl', 'must be a duration up to 30d');
    return { fields, grant: null };
  }
  return { fields, grant: { key: g.grant.key, max_ttl: g.grant.max_ttl, max_ttl_ms: ms } };
}
