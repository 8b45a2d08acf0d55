/**
 * Template placeholders: which values a trigger supplies, checks at save time, and resolution of a
 * template's stored configuration into what the trigger creates.
 *
 * Decided rules (docs/templates.md):
 * - A value is not supplied when its key is absent, null or the empty string (an HTML form posts blank fields as
 *   ''): then the default applies, or null when there is none; a required placeholder without a value is a
 *   MissingPlaceholderError naming every such placeholder.
 * - Keys of the trigger body that name no placeholder (other than `schedule`) are ignored and listed.
 * - Action templates: placeholders resolve in the name, request URL, header values, body, gate message, gate
 *   recipients and dedup keys, in one pass (a value holding `{{...}}` stays as it is). Strings fields stay strings;
 *   a body value that is exactly one placeholder keeps its JSON type.
 * - Chain templates: the name resolves at trigger time; in the steps, `{{name}}` becomes `{{input.name}}` and the
 *   values become the chain's input, so the chain reads them when each step starts, like any chain.
 */
import {
  type ChainStepParsed,
  type GateInput,
  type PlaceholderDefinition,
  RESERVED_PLACEHOLDER_NAMES,
} from '@sched/contract';
import {
  chainStepErrors,
  type GatedStepParsed,
  type HttpCallStepParsed,
  type ValidationErrors,
} from '../chain/definition.js';
import { stepTypeAlias } from '../chain/states.js';
import { formatCondition, parseCondition } from '../expressions/condition.js';
import { ExpressionError } from '../expressions/errors.js';
import {
  hasOriginExpression,
  interpolateUrl,
  ORIGIN_EXPRESSION_NEEDS_ALLOWLIST,
  urlTemplateProblem,
} from '../expressions/url.js';
import {
  interpolate,
  interpolateHeaderValue,
  interpolateString,
  renameExpressions,
  type Scope,
} from '../expressions/interpolate.js';
import { type Expression, listExpressions } from '../expressions/syntax.js';

export class MissingPlaceholderError extends Error {
  constructor(readonly names: readonly string[]) {
    super(`missing value for required placeholder${names.length > 1 ? 's' : ''} ${names.join(', ')}`);
    this.name = 'MissingPlaceholderError';
  }
}

/** Trigger values that do not fit their placeholder's type, pattern, length or enum: messages by placeholder name. */
export class InvalidPlaceholderError extends Error {
  constructor(readonly errors: Record<string, string[]>) {
    super(
      `invalid value for placeholder${Object.keys(errors).length > 1 ? 's' : ''} ${Object.entries(errors)
        .map(([name, messages]) => `${name} (${messages.join('; ')})`)
        .join(', ')}`,
    );
    this.name = 'InvalidPlaceholderError';
  }
}

export interface PlaceholderValues {
  /** Every declared placeholder: the supplied value, else its default, else null. Has no prototype. */
  values: Record<string, unknown>;
  /** Keys of the trigger body that name no placeholder, sorted (`schedule` is not one of them). */
  ignored: string[];
}

const notSupplied = (value: unknown) => value === undefined || value === null || value === '';

/** The longest text value accepted when a placeholder sets no max_length. */
export const DEFAULT_PLACEHOLDER_MAX_LENGTH = 1000;

const INTEGER_TEXT = /^-?\d{1,15}$/;
const NUMBER_TEXT = /^-?(?:0|[1-9]\d{0,20})(?:\.\d{1,20})?(?:[eE][+-]?\d{1,3})?$/;
const BOOLEAN_TEXT: Readonly<Record<string, boolean>> = { true: true, false: false, on: true, off: false };

/**
 * A supplied value as its placeholder's type, or the reason it does not fit. Form fields arrive as text, so text is
 * converted; without a type a number or boolean becomes text and an object or array is refused (no operators or extra fields smuggled in at the receiver).
 */
function typedValue(
  p: PlaceholderDefinition,
  given: unknown,
): { ok: true; value: unknown } | { ok: false; message: string } {
  const type = p.type ?? 'string';
  let value: unknown;
  if (type === 'string') {
    if (typeof given === 'string') value = given;
    else if (typeof given === 'number' || typeof given === 'boolean') value = String(given);
    else return { ok: false, message: 'must be text, not an object or a list' };
  } else if (type === 'integer') {
    if (typeof given === 'number' && Number.isSafeInteger(given)) value = given;
    else if (typeof given === 'string' && INTEGER_TEXT.test(given.trim())) value = Number(given.trim());
    else return { ok: false, message: 'must be an integer' };
  } else if (type === 'number') {
    if (typeof given === 'number' && Number.isFinite(given)) value = given;
    else if (typeof given === 'string' && NUMBER_TEXT.test(given.trim())) value = Number(given.trim());
    else return { ok: false, message: 'must be a number' };
  } else {
    if (typeof given === 'boolean') value = given;
    else if (typeof given === 'string' && Object.hasOwn(BOOLEAN_TEXT, given.trim().toLowerCase()))
      value = BOOLEAN_TEXT[given.trim().toLowerCase()];
    else return { ok: false, message: 'must be true or false' };
  }
  const text = String(value);
  const max = p.max_length ?? DEFAULT_PLACEHOLDER_MAX_LENGTH;
  if (text.length > max) return { ok: false, message: `must be at most ${max} characters` };
  // The pattern runs only on text within max_length, which bounds what a costly pattern can cost.
  if (p.pattern !== undefined && !new RegExp(p.pattern, 'u').test(text)) {
    return { ok: false, message: `must match ${p.pattern}` };
  }
  if (p.enum !== undefined && !p.enum.some((e) => e === value || String(e) === text)) {
    return { ok: false, message: `must be one of ${p.enum.map((e) => JSON.stringify(e)).join(', ')}` };
  }
  return { ok: true, value };
}

/** The value of each declared placeholder for one trigger. */
export function placeholderValues(
  definitions: readonly PlaceholderDefinition[],
  supplied: Readonly<Record<string, unknown>>,
): PlaceholderValues {
  // No prototype: a name can never reach Object.prototype's members.
  const values: Record<string, unknown> = Object.create(null);
  const missing: string[] = [];
  const invalid: Record<string, string[]> = {};
  for (const p of definitions) {
    const given = Object.hasOwn(supplied, p.name) ? supplied[p.name] : undefined;
    if (!notSupplied(given)) {
      const typed = typedValue(p, given);
      if (typed.ok) values[p.name] = typed.value;
      else invalid[p.name] = [typed.message];
    } else if (p.required) missing.push(p.name);
    else values[p.name] = p.default ?? null;
  }
  if (missing.length > 0) throw new MissingPlaceholderError(missing);
  if (Object.keys(invalid).length > 0) throw new InvalidPlaceholderError(invalid);
  const declared = new Set(definitions.map((p) => p.name));
  const ignored = Object.keys(supplied)
    .filter((key) => !declared.has(key) && !(RESERVED_PLACEHOLDER_NAMES as readonly string[]).includes(key))
    .sort();
  return { values, ignored };
}

/** The parts of an action template that take placeholders. */
export interface ActionTemplateConfig {
  name: string;
  request_config?:
    | { url: string; method: string; headers: Record<string, string>; body?: unknown }
    | undefined;
  gate_config?: GateInput | undefined;
  dedup_keys?: string[] | undefined;
  /** The origins `request_config.url` may resolve to when its scheme or host holds a placeholder. */
  allowed_origins?: readonly string[] | undefined;
}

/** The fields of an action template that take placeholders, as [path, value] pairs. */
function actionTemplateFields(t: ActionTemplateConfig): [path: (string | number)[], value: unknown][] {
  const fields: [(string | number)[], unknown][] = [[['name'], t.name]];
  if (t.request_config) {
    fields.push([['request_config', 'url'], t.request_config.url]);
    fields.push([['request_config', 'headers'], t.request_config.headers]);
    fields.push([['request_config', 'body'], t.request_config.body]);
  }
  if (t.gate_config) {
    fields.push([['gate_config', 'message'], t.gate_config.message]);
    fields.push([['gate_config', 'recipients'], t.gate_config.recipients]);
  }
  if (t.dedup_keys) fields.push([['dedup_keys'], t.dedup_keys]);
  return fields;
}

/** The parts of a chain template that take placeholders. */
export interface ChainTemplateConfig {
  name: string;
  chain_steps: readonly ChainStepParsed[];
}

function placeholderProblem(expression: Expression, declared: ReadonlySet<string>): string | null {
  if (expression.kind !== 'placeholder') {
    return `{{${expression.source}}} only works in chain steps; an action template reads placeholders such as {{name}}`;
  }
  return declared.has(expression.name) ? null : `{{${expression.source}}} is not a declared placeholder`;
}

/**
 * The 422 errors of a template at save time: placeholders malformed, undeclared or out of place, and (given the
 * allowed `urlSchemes`) a request URL that no value could make acceptable.
 */
export function templatePlaceholderErrors(
  template: { type: 'action'; config: ActionTemplateConfig } | { type: 'chain'; config: ChainTemplateConfig },
  definitions: readonly PlaceholderDefinition[],
  urlSchemes?: readonly string[],
): ValidationErrors {
  const declared = new Set(definitions.map((p) => p.name));
  const errors: ValidationErrors = {};
  const add = (path: (string | number)[], message: string) => {
    const key = path.join('.');
    errors[key] = [...(errors[key] ?? []), message];
  };
  const fields: [(string | number)[], unknown][] =
    template.type === 'action' ? actionTemplateFields(template.config) : [[['name'], template.config.name]];
  for (const [path, value] of fields) {
    try {
      for (const found of listExpressions(value)) {
        const problem = placeholderProblem(found.expression, declared);
        if (problem !== null) add([...path, ...found.path], problem);
      }
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      add([...path, ...error.path], error.message);
    }
  }
  if (template.type === 'action' && template.config.request_config) {
    const { url } = template.config.request_config;
    const problem = urlSchemes === undefined ? null : urlTemplateProblem(url, urlSchemes);
    if (problem !== null) add(['request_config', 'url'], problem);
    if (hasOriginExpression(url) && (template.config.allowed_origins ?? []).length === 0) {
      add(['request_config', 'url'], ORIGIN_EXPRESSION_NEEDS_ALLOWLIST);
    }
  }
  if (template.type === 'chain') {
    const rules = { placeholders: declared, ...(urlSchemes && { urlSchemes }) };
    Object.assign(errors, chainStepErrors(template.config.chain_steps, rules, 'chain_steps'));
  }
  return errors;
}

/** What a stored template holds that the save-time placeholder rules read. */
export interface StoredTemplate {
  type: 'action' | 'chain';
  name: string;
  request_config?: ActionTemplateConfig['request_config'] | null;
  gate_config?: GateInput | null;
  dedup_keys?: string[] | null;
  allowed_origins?: readonly string[] | null;
  chain_steps?: readonly ChainStepParsed[] | null;
  placeholders: readonly PlaceholderDefinition[];
}

/**
 * The save-time placeholder rules applied to a template as stored: a template saved by an older release (before
 * allowed_origins existed, for one) must fail them at trigger time too, never let a trigger value pick a host.
 */
export function storedTemplateErrors(t: StoredTemplate, urlSchemes?: readonly string[]): ValidationErrors {
  if (t.type === 'chain') {
    return t.chain_steps
      ? templatePlaceholderErrors(
          { type: 'chain', config: { name: t.name, chain_steps: t.chain_steps } },
          t.placeholders,
          urlSchemes,
        )
      : {};
  }
  return templatePlaceholderErrors(
    {
      type: 'action',
      config: {
        name: t.name,
        request_config: t.request_config ?? undefined,
        gate_config: t.gate_config ?? undefined,
        dedup_keys: t.dedup_keys ?? undefined,
        allowed_origins: t.allowed_origins ?? [],
      },
    },
    t.placeholders,
    urlSchemes,
  );
}

/** Runs `resolve` with `path` put in front of the path of any ExpressionError. */
function at<T>(path: readonly (string | number)[], resolve: () => T): T {
  try {
    return resolve();
  } catch (error) {
    if (error instanceof ExpressionError) error.path.unshift(...path);
    throw error;
  }
}

/**
 * An action template's configuration with the placeholder values in. Only ExpressionErrors can be thrown (their
 * `path` names the field, e.g. `request_config.url`): a value that would change the URL's structure, leave its
 * allowed origins or add a header line.
 */
export function resolveActionTemplate<T extends ActionTemplateConfig>(
  template: T,
  values: Record<string, unknown>,
): T {
  const scope: Scope = { placeholders: values };
  const text = (s: string) => interpolateString(s, scope);
  const { request_config: request, gate_config: gate, dedup_keys: keys } = template;
  return {
    ...template,
    name: at(['name'], () => text(template.name)),
    ...(request && {
      request_config: {
        ...request,
        url: at(['request_config', 'url'], () =>
          interpolateUrl(request.url, scope, template.allowed_origins ?? []),
        ),
        headers: Object.fromEntries(
          Object.entries(request.headers).map(([k, v]) => [
            k,
            at(['request_config', 'headers', k], () => interpolateHeaderValue(v, scope)),
          ]),
        ),
        ...(request.body !== undefined && {
          body: at(['request_config', 'body'], () => interpolate(request.body, scope)),
        }),
      },
    }),
    ...(gate && {
      gate_config: { ...gate, message: text(gate.message), recipients: gate.recipients.map(text) },
    }),
    ...(keys && { dedup_keys: keys.map(text) }),
  };
}

/** `{{name}}` -> `{{input.name}}`; chain expressions stay as they are. */
const toInputReference = (expression: Expression) =>
  expression.kind === 'placeholder' ? `input.${expression.name}` : null;

function renameStep(step: ChainStepParsed): ChainStepParsed {
  const rename = <V>(value: V) => renameExpressions(value, toInputReference) as V;
  const renamed = { ...step };
  if (step.condition !== undefined) {
    const condition = parseCondition(step.condition);
    renamed.condition = formatCondition({
      ...condition,
      left: rename(condition.left),
      right: rename(condition.right),
    });
  }
  switch (stepTypeAlias(step.type)) {
    case 'webhook': {
      const http = renamed as HttpCallStepParsed;
      return { ...http, url: rename(http.url), headers: rename(http.headers), body: rename(http.body) };
    }
    case 'approval': {
      const gated = renamed as GatedStepParsed;
      const gate = {
        ...gated.gate,
        message: rename(gated.gate.message),
        recipients: rename(gated.gate.recipients),
      };
      return { ...gated, gate };
    }
    case 'wait':
      return renamed;
  }
}

/**
 * What a chain template's trigger creates: the resolved name, the steps reading the values as chain input, and
 * that input. Only ExpressionErrors can be thrown, and none once templatePlaceholderErrors found nothing.
 */
export function resolveChainTemplate(
  template: ChainTemplateConfig,
  values: Record<string, unknown>,
): { name: string; steps: ChainStepParsed[]; input: Record<string, unknown> } {
  return {
    name: interpolateString(template.name, { placeholders: values }),
    steps: template.chain_steps.map(renameStep),
    input: values,
  };
}
