/**
 * `{{...}}` interpolation over JSON values, for chain steps (`{{input.x}}`, `{{steps.N.response.a.b}}`,
 * `{{steps.N.status}}`) and templates (`{{name}}`). Pure: the values come in through a Scope.
 *
 * Decided rules (docs/chains.md and docs/templates.md tell users the same):
 * - Every string inside the value is interpolated (object values and array items, at any depth); object keys are not.
 * - A string that is exactly one expression, with nothing around it, becomes the value with its JSON type. Inside a
 *   longer string a value is written as text: strings as they are, null as nothing, numbers and booleans in JSON,
 *   objects and arrays as JSON.
 * - One pass: a value that contains `{{...}}` is data and is never expanded again.
 * - Paths: dots between keys, and array indexes either as a dot segment or in brackets (`items.0.id`,
 *   `items[0].id`). Keys are letters, digits, `_` and `-`. Whitespace just inside the braces is allowed.
 * - A path that leads nowhere is a MissingValueError naming the expression; it never becomes '' or null.
 * - A literal `{{` is written `\{{`; a backslash just before an expression is written `\\{{`. Backslashes anywhere
 *   else are ordinary characters. In `{{{x}}}` the outer braces are literal, so `{ {{x}} }` needs no escape.
 * - An unclosed `{{`, or braces holding something that is not an expression, is an ExpressionSyntaxError.
 */
import { ExpressionError, MissingValueError, UnknownExpressionError } from './errors.js';
import {
  type Expression,
  INDEX,
  MAX_DEPTH,
  parseExpression,
  parseTemplate,
  type TemplatePart,
} from './syntax.js';

/** What `{{steps.N...}}` reads: the step's outcome and its response (parsed JSON, a string, or null). */
interface StepResult {
  status: string;
  response: unknown;
}

/** The values one interpolation may read. A root that is absent is not available there (UnknownExpressionError). */
export interface Scope {
  /** The chain's input. */
  input?: unknown;
  /** Settled steps, by index; a step that has not settled is absent. */
  steps?: Readonly<Record<string, StepResult>> | readonly (StepResult | undefined)[];
  /** Template placeholders by name: every declared one, its value, default or null. */
  placeholders?: Readonly<Record<string, unknown>>;
}

/** How a value reads inside a longer string. */
export function stringifyValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    throw new ExpressionError('a value could not be written as JSON');
  }
}

/** Follows `path` inside a JSON value; `undefined` when a key or index is missing. */
export function lookupPath(
  root: unknown,
  path: readonly string[],
): { found: true; value: unknown } | { found: false; at: number } {
  let current = root;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    if (Array.isArray(current)) {
      if (!INDEX.test(key) || Number(key) >= current.length) return { found: false, at: i };
      current = current[Number(key)];
    } else if (current !== null && typeof current === 'object' && Object.hasOwn(current, key)) {
      current = (current as Record<string, unknown>)[key];
    } else {
      return { found: false, at: i };
    }
    if (current === undefined) return { found: false, at: i };
  }
  return { found: true, value: current };
}

function missing(
  expression: Expression,
  path: readonly string[],
  lookup: { at: number },
  what: string,
): never {
  const where = path.slice(0, lookup.at).join('.');
  throw new MissingValueError(
    expression.source,
    `no "${path[lookup.at]}" in ${where === '' ? what : `${what}.${where}`}`,
  );
}

function stepOf(scope: Scope, expression: Expression & { step: number }): StepResult {
  if (scope.steps === undefined) {
    throw new UnknownExpressionError(expression.source, 'only works in chain steps');
  }
  const key = String(expression.step);
  const result = Object.hasOwn(scope.steps, key)
    ? (scope.steps as Readonly<Record<string, StepResult | undefined>>)[key]
    : undefined;
  if (result === undefined)
    throw new MissingValueError(expression.source, `step ${expression.step} has not run`);
  return result;
}

/** The value an expression reads in a scope. */
export function resolveExpression(expression: Expression, scope: Scope): unknown {
  switch (expression.kind) {
    case 'input': {
      if (scope.input === undefined) {
        throw new UnknownExpressionError(expression.source, 'only works in chain steps');
      }
      const found = lookupPath(scope.input, expression.path);
      if (!found.found) missing(expression, expression.path, found, 'input');
      return found.value;
    }
    case 'step_status':
      return stepOf(scope, expression).status;
    case 'step_response': {
      const found = lookupPath(stepOf(scope, expression).response, expression.path);
      if (!found.found) missing(expression, expression.path, found, `steps.${expression.step}.response`);
      return found.value;
    }
    case 'placeholder': {
      const values = scope.placeholders;
      if (values === undefined) {
        throw new UnknownExpressionError(
          expression.source,
          'is not an expression of chains: use {{input.<field>}}, {{steps.N.response...}} or {{steps.N.status}}',
        );
      }
      if (!Object.hasOwn(values, expression.name)) {
        throw new UnknownExpressionError(expression.source, 'is not a declared placeholder');
      }
      return values[expression.name] ?? null;
    }
  }
}

function renderParts(parts: readonly TemplatePart[], scope: Scope): string {
  let out = '';
  for (const part of parts) {
    out += part.kind === 'text' ? part.text : stringifyValue(resolveExpression(part.expression, scope));
  }
  return out;
}

/** Interpolates one string to a string, whatever the types of the values (URLs, header values, messages). */
export function interpolateString(text: string, scope: Scope): string {
  return renderParts(parseTemplate(text), scope);
}

/**
 * Interpolates a header value: a value holding CR, LF or NUL is refused, so that no value can end the header or
 * add another one (the literal text is checked when the request is saved).
 */
export function interpolateHeaderValue(text: string, scope: Scope): string {
  let out = '';
  for (const part of parseTemplate(text)) {
    if (part.kind === 'text') {
      out += part.text;
      continue;
    }
    const value = stringifyValue(resolveExpression(part.expression, scope));
    if (/[\r\n\0]/.test(value)) {
      throw new ExpressionError(
        `{{${part.expression.source}}} holds a line break or NUL, which a header value cannot`,
      );
    }
    out += value;
  }
  return out;
}

function interpolateText(text: string, scope: Scope): unknown {
  const parts = parseTemplate(text);
  const only = parts[0];
  if (parts.length === 1 && only?.kind === 'expression') return resolveExpression(only.expression, scope);
  return renderParts(parts, scope);
}

/** Applies `visit` to every string of a JSON value, rebuilding arrays and objects; errors learn where they arose. */
function mapStrings(value: unknown, visit: (text: string) => unknown, depth = 0): unknown {
  if (typeof value === 'string') return visit(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) throw new ExpressionError(`the value nests deeper than ${MAX_DEPTH} levels`);
  const withPath = <T>(key: string | number, run: () => T): T => {
    try {
      return run();
    } catch (error) {
      if (error instanceof ExpressionError) error.path.unshift(key);
      throw error;
    }
  };
  if (Array.isArray(value)) {
    return value.map((item, index) => withPath(index, () => mapStrings(item, visit, depth + 1)));
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // defineProperty: a key named __proto__ stays an ordinary key.
    Object.defineProperty(out, key, {
      value: withPath(key, () => mapStrings(item, visit, depth + 1)),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * Interpolates every string of a JSON value (request bodies). A string that is exactly one expression takes the
 * value's JSON type. Throws only ExpressionError subclasses.
 */
export function interpolate(value: unknown, scope: Scope): unknown {
  return mapStrings(value, (text) => interpolateText(text, scope));
}

/**
 * Rewrites the expressions of every string of a value, leaving the literal text exactly as written; `rename`
 * gives the new inner text, or null to keep the expression. Used to turn a chain template's `{{name}}` into
 * `{{input.name}}`.
 */
export function renameExpressions(
  value: unknown,
  rename: (expression: Expression) => string | null,
): unknown {
  return mapStrings(value, (text) => {
    let out = '';
    let from = 0;
    for (const part of parseTemplate(text)) {
      if (part.kind !== 'expression') continue;
      const renamed = rename(part.expression);
      if (renamed === null) continue;
      parseExpression(renamed);
      out += `${text.slice(from, part.start)}{{${renamed}}}`;
      from = part.end;
    }
    return out + text.slice(from);
  });
}
