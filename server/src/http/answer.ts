import { ResponseInput } from '@sched/contract';
import type { z } from 'zod';
import { issuesToErrors } from './errors.js';

/** The page's form names each typed answer input `values.<name>`. */
export const FORM_VALUE_PREFIX = 'values.';

export type ParsedAnswer =
  | {
      ok: true;
      decision: z.infer<typeof ResponseInput>['decision'];
      comment: string | null;
      snoozeFor: string | null;
      /** The typed answer as sent (checked against the gate's fields by the use case). */
      values: Record<string, unknown> | undefined;
      grantTtl: string | null;
      /** `push` when a push notification's button answered (the service worker says so); `page` otherwise. */
      via: 'page' | 'push';
    }
  | { ok: false; errors: Record<string, string[]> };

/**
 * What a browser form sends, made comparable with a JSON answer: empty fields are absent, and a textarea's CRLF
 * line breaks count once, as its `maxlength` counted them; a blank comment is none.
 */
function normaliseAnswer(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const out: Record<string, unknown> = {};
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    // A form's typed answer comes as `values.<name>` inputs; an emptied input is a value cleared, not left out. A
    // checkbox sends its hidden "false" and, when ticked, "true": the last one counts.
    if (name.startsWith(FORM_VALUE_PREFIX)) {
      const v = Array.isArray(value) ? value[value.length - 1] : value;
      values[name.slice(FORM_VALUE_PREFIX.length)] = v === '' ? null : v;
      continue;
    }
    const v = name === 'comment' && typeof value === 'string' ? value.replace(/\r\n?/g, '\n').trim() : value;
    if (v !== '' && v !== null) out[name] = v;
  }
  if (Object.keys(values).length > 0) out.values = { ...(out.values as object | undefined), ...values };
  return out;
}

/**
 * The answer posted to a response link, as a urlencoded form (parsed into an object) or JSON, checked by the
 * contract's `ResponseInput`. `snoozeFor` is kept only for a snooze: the page's select is submitted with every
 * button. A snooze without `snooze_for` is left for the caller's default.
 */
export function parseAnswer(body: unknown): ParsedAnswer {
  const parsed = ResponseInput.safeParse(normaliseAnswer(body));
  if (!parsed.success) return { ok: false, errors: issuesToErrors(parsed.error.issues, 'body') };
  const { decision, comment, snooze_for, via, values, grant_ttl } = parsed.data;
  return {
    ok: true,
    decision,
    comment: comment ?? null,
    snoozeFor: decision === 'snooze' ? (snooze_for ?? null) : null,
    via: via ?? 'page',
    values,
    // The page's grant select is submitted with every button: it counts only with a confirm.
    grantTtl: decision === 'confirm' ? (grant_ttl ?? null) : null,
  };
}
