/**
 * The syntax of `{{...}}` expressions (the rules are listed in interpolate.ts, which evaluates them): parsing an
 * expression and a string of text and expressions, finding them in a JSON value, and writing text that holds none.
 * Pure, like the evaluation.
 */
import { ExpressionError, ExpressionSyntaxError } from './errors.js';

export type Expression =
  | { kind: 'input'; source: string; path: readonly string[] }
  | { kind: 'step_status'; source: string; step: number }
  | { kind: 'step_response'; source: string; step: number; path: readonly string[] }
  | { kind: 'placeholder'; source: string; name: string };

export type TemplatePart =
  | { kind: 'text'; text: string }
  /** `start`/`end` delimit `{{...}}` in the original string. */
  | { kind: 'expression'; expression: Expression; start: number; end: number };

/** Deeper values are refused rather than risking the stack: no real request body nests this far. */
export const MAX_DEPTH = 64;

const PATH_SYNTAX = /^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_-]+|\[\d+\])*$/;
export const INDEX = /^(?:0|[1-9]\d*)$/;

/** Parses the text between `{{` and `}}`. */
export function parseExpression(inner: string): Expression {
  const source = inner.trim();
  if (!PATH_SYNTAX.test(source)) {
    throw new ExpressionSyntaxError(
      source === ''
        ? 'empty expression {{}}'
        : `{{${inner.length > 80 ? `${inner.slice(0, 77)}...` : inner}}} is not an expression: use keys of letters, digits, _ or - separated by dots, e.g. {{input.order_id}}`,
    );
  }
  const segments = source.split(/\.|\[(\d+)\]/).filter((s): s is string => s !== undefined && s !== '');
  const [root, ...rest] = segments as [string, ...string[]];
  if (root === 'input') return { kind: 'input', source, path: rest };
  if (root === 'steps') {
    const [index, field, ...path] = rest;
    if (index === undefined || !INDEX.test(index) || index.length > 6) {
      throw new ExpressionSyntaxError(`{{${source}}}: expected a step index, as in {{steps.0.status}}`);
    }
    const step = Number(index);
    if (field === 'status' && path.length === 0) return { kind: 'step_status', source, step };
    if (field === 'response') return { kind: 'step_response', source, step, path };
    throw new ExpressionSyntaxError(
      `{{${source}}}: a step is read as {{steps.${step}.status}} or {{steps.${step}.response...}}`,
    );
  }
  if (rest.length === 0) return { kind: 'placeholder', source, name: root };
  throw new ExpressionSyntaxError(
    `{{${source}}}: expressions start with input, steps or a placeholder name without dots`,
  );
}

/** Splits a string into literal text and expressions, applying the escapes. */
export function parseTemplate(text: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let literal = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '\\') {
      let run = 1;
      while (text[i + run] === '\\') run++;
      if (text.startsWith('{{', i + run)) {
        literal += '\\'.repeat(Math.floor(run / 2));
        if (run % 2 === 1) {
          literal += '{{';
          i += run + 2;
        } else {
          i += run;
        }
      } else {
        literal += '\\'.repeat(run);
        i += run;
      }
      continue;
    }
    if (ch === '{' && text.startsWith('{{{', i)) {
      literal += '{';
      i++;
      continue;
    }
    if (ch === '{' && text.startsWith('{{', i)) {
      const close = text.indexOf('}}', i + 2);
      if (close < 0)
        throw new ExpressionSyntaxError(`unclosed {{ at character ${i + 1} (a literal {{ is written \\{{)`);
      if (literal !== '') parts.push({ kind: 'text', text: literal });
      literal = '';
      parts.push({
        kind: 'expression',
        expression: parseExpression(text.slice(i + 2, close)),
        start: i,
        end: close + 2,
      });
      i = close + 2;
      continue;
    }
    literal += ch;
    i++;
  }
  if (literal !== '' || parts.length === 0) parts.push({ kind: 'text', text: literal });
  return parts;
}

/** Whether a string holds an expression (a malformed one counts: it is reported elsewhere). */
export function hasExpression(text: string): boolean {
  try {
    return parseTemplate(text).some((part) => part.kind === 'expression');
  } catch (error) {
    if (error instanceof ExpressionError) return true;
    throw error;
  }
}

/** The indexes of the entries that hold an expression (recipients a value chooses, which must be the account's own). */
export function indexesWithExpressions(texts: readonly string[]): number[] {
  return texts.flatMap((text, i) => (hasExpression(text) ? [i] : []));
}

/** The literal form of a string: interpolating the result gives `text` back unchanged. */
export function escapeLiteral(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (text[i] === '\\') {
      let run = 1;
      while (text[i + run] === '\\') run++;
      // Backslashes before `{{` are doubled so that they stay backslashes once the `{{` is escaped.
      out += '\\'.repeat(text.startsWith('{{', i + run) ? run * 2 : run);
      i += run;
    } else if (text.startsWith('{{', i)) {
      out += '\\{{';
      i += 2;
    } else {
      out += text[i];
      i++;
    }
  }
  return out;
}

export interface FoundExpression {
  /** Keys from the root of the value to the string holding the expression. */
  path: (string | number)[];
  expression: Expression;
}

/** Every expression a value uses, in document order; a malformed one throws ExpressionSyntaxError with its path. */
export function listExpressions(value: unknown): FoundExpression[] {
  const found: FoundExpression[] = [];
  const walk = (node: unknown, path: (string | number)[]): void => {
    if (typeof node === 'string') {
      try {
        for (const part of parseTemplate(node)) {
          if (part.kind === 'expression') found.push({ path, expression: part.expression });
        }
      } catch (error) {
        if (error instanceof ExpressionError) error.path.unshift(...path);
        throw error;
      }
      return;
    }
    if (node === null || typeof node !== 'object') return;
    if (path.length >= MAX_DEPTH) {
      const error = new ExpressionError(`the value nests deeper than ${MAX_DEPTH} levels`);
      error.path.push(...path);
      throw error;
    }
    const entries: [string | number, unknown][] = Array.isArray(node)
      ? [...node.entries()]
      : Object.entries(node);
    for (const [key, item] of entries) walk(item, [...path, key]);
  };
  walk(value, []);
  return found;
}
