import { TEMPLATE_CLEARABLE_FIELDS, type TemplateCreateParsed, templateShapeIssues } from '@sched/contract';
import { effectiveMaxAttempts, type Plan } from '../../domain/quota/plans.js';
import { isValidTimezone } from '../../domain/schedule/resolve.js';
import { storedTemplateErrors } from '../../domain/template/placeholders.js';
import {
  checkDestinationUrl,
  destinationSchemes,
  type PrivateAccess,
} from '../../domain/destinations/policy.js';
import type { TemplateRow } from '../../persistence/templates.js';

/** The columns a create or an update writes: the template's identity fields and those an update may clear. */
const DEFINITION_KEYS = [
  'name',
  'type',
  'mode',
  'timezone',
  ...TEMPLATE_CLEARABLE_FIELDS,
] as const satisfies readonly (keyof TemplateRow & keyof TemplateCreateParsed)[];

/** What a template holds besides its identity, token and statistics. */
export type TemplateDefinition = Pick<TemplateRow, (typeof DEFINITION_KEYS)[number]>;

/** The fields an update body may carry: any subset of a create body's, optional ones possibly null (cleared). */
export type TemplateFields = { [K in keyof TemplateCreateParsed]?: TemplateCreateParsed[K] | null };

export const EMPTY_DEFINITION: TemplateDefinition = {
  name: '',
  description: null,
  type: 'action',
  mode: null,
  timezone: 'UTC',
  request_config: null,
  allowed_origins: [],
  gate_config: null,
  max_attempts: null,
  retry_strategy: null,
  webhook_secret: null,
  callback_url: null,
  chain_steps: null,
  chain_error_handling: null,
  placeholders: [],
  dedup_keys: [],
  trigger_limit_per_hour: null,
  trigger_limit_per_day: null,
  max_schedule_days: null,
  delivery_window: null,
};

/** `base` with every field the body supplies replaced (PUT changes only what it names). */
export function mergeDefinition(base: TemplateDefinition, fields: TemplateFields): TemplateDefinition {
  const merged: Record<string, unknown> = { ...base };
  for (const key of DEFINITION_KEYS) {
    const value = fields[key];
    if (value === undefined) continue;
    // null clears: lists become empty, the rest null (the default applies again).
    merged[key] =
      value === null ? (Array.isArray(EMPTY_DEFINITION[key]) ? [] : EMPTY_DEFINITION[key]) : value;
  }
  return merged as TemplateDefinition;
}

/**
 * The 422 errors of a whole template, checked when it is saved (created, or as it stands after an update): its
 * shape for its type and mode, max_attempts within the plan's cap, the timezone,
 * placeholders used but not declared or out of place, and URLs no value could make acceptable (a URL without
 * placeholders gets the full destination check at once).
 */
export function definitionErrors(
  d: TemplateDefinition,
  ctx: { plan: Plan; allowPrivateDestinations: PrivateAccess },
): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (path: string, message: string) => {
    errors[path] = [...(errors[path] ?? []), message];
  };
  const orUndefined = <T>(v: T | null) => v ?? undefined;
  for (const issue of templateShapeIssues({
    type: d.type,
    mode: orUndefined(d.mode),
    request_config: orUndefined(d.request_config),
    gate_config: orUndefined(d.gate_config),
    chain_steps: orUndefined(d.chain_steps),
  })) {
    add(issue.path.join('.'), issue.message);
  }
  if (!isValidTimezone(d.timezone)) add('timezone', 'must be an IANA timezone such as Europe/Paris');
  const attempts = effectiveMaxAttempts(d.max_attempts, ctx.plan);
  if (!attempts.ok) add('max_attempts', attempts.message);

  const schemes = destinationSchemes(ctx.allowPrivateDestinations);
  const placeholderErrors = storedTemplateErrors(d, schemes);
  for (const [path, messages] of Object.entries(placeholderErrors)) for (const m of messages) add(path, m);

  const literal = (url: string | null | undefined) => url != null && !url.includes('{{');
  const allowPrivate = ctx.allowPrivateDestinations;
  if (d.type === 'action' && literal(d.request_config?.url) && !errors['request_config.url']) {
    const check = checkDestinationUrl(d.request_config!.url, { allowPrivate });
    if (!check.ok) add('request_config.url', check.message);
  }
  if (d.callback_url !== null) {
    const check = checkDestinationUrl(d.callback_url, { allowPrivate });
    if (!check.ok) add('callback_url', check.message);
  }
  return errors;
}
