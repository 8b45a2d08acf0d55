/**
 * Step conditions: `<left> <operator> <right>`.
 *
 * Decided rules (docs/chains.md):
 * - The operator stands between whitespace. The left side is one token (an expression such as
 *   `{{ steps.1.status }}` may hold spaces) or a quoted string; the right side is a quoted string or, unquoted,
 *   the rest of the line with its outer spaces trimmed (so `== in stock` compares with "in stock").
 * - Quotes are `"` or `'`; inside them `\"` (or `\'`) is the quote and `\\` a backslash.
 * - The condition is parsed before any value is substituted, then each side is interpolated on its own: a value
 *   can never change the shape of the condition, whatever it contains.
 * - Both sides numbers (optional sign, digits, optional fraction and exponent): numeric comparison, so `10 > 9` and
 *   `1.0 == 1`. Otherwise strings, case-sensitive, `<` and `>` by UTF-16 code units. `contains`, `not_contains`,
 *   `starts_with` and `ends_with` always work on the text. Values read as in a longer string (null is empty).
 */
import { ConditionSyntaxError, ExpressionError } from './errors.js';
import { interpolateString, type Scope } from './interpolate.js';
import { type FoundExpression, parseTemplate } from './syntax.js';

export const CONDITION_OPERATORS = Object.freeze([
  '==',
  '!=',
  '>',
  '<',
  '>=',
  '<=',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
] as const);
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export interface Condition {
  /** Each side as written, quotes removed; interpolated when the condition is evaluated. */
  left: string;
  operator: ConditionOperator;
  right: string;
}

const WHITESPACE = /\s/;
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function isOperator(token: string): token is ConditionOperator {
  return (CONDITION_OPERATORS as readonly string[]).includes(token);
}

/** Reads a quoted string starting at `start`; returns its text and the index after the closing quote. */
function readQuoted(text: string, start: number): { value: string; end: number } {
  const quote = text[start]!;
  let value = '';
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === quote) return { value, end: i + 1 };
    if (ch === '\\' && (text[i + 1] === quote || text[i + 1] === '\\')) {
      value += text[i + 1];
      i += 2;
      continue;
    }
    value += ch;
    i++;
  }
  throw new ConditionSyntaxError(`unclosed ${quote} in the condition`);
}

/** Reads an unquoted token up to whitespace outside `{{...}}`. */
function readBare(text: string, start: number): { value: string; end: number } {
  let i = start;
  while (i < text.length && !WHITESPACE.test(text[i]!)) {
    if (text[i] === '\\') {
      // As parseTemplate reads them: an odd run of backslashes before `{{` makes it literal.
      let run = 1;
      while (text[i + run] === '\\') run++;
      i += run + (run % 2 === 1 && text.startsWith('{{', i + run) ? 2 : 0);
    } else if (text.startsWith('{{', i)) {
      const close = text.indexOf('}}', i + 2);
      if (close < 0) throw new ConditionSyntaxError(`unclosed {{ at character ${i + 1}`);
      i = close + 2;
    } else {
      i++;
    }
  }
  return { value: text.slice(start, i), end: i };
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && WHITESPACE.test(text[i]!)) i++;
  return i;
}

const isQuote = (ch: string | undefined) => ch === '"' || ch === "'";

/** Parses a condition; a malformed one (or a malformed expression in it) is a ConditionSyntaxError. */
export function parseCondition(text: string): Condition {
  const form = 'a condition is <left> <operator> <right>, e.g. {{steps.0.status}} == executed';
  let i = skipSpace(text, 0);
  if (i === text.length) throw new ConditionSyntaxError(`empty condition: ${form}`);
  const left = isQuote(text[i]) ? readQuoted(text, i) : readBare(text, i);
  i = skipSpace(text, left.end);
  if (i === left.end && i < text.length)
    throw new ConditionSyntaxError(`expected a space after the left side: ${form}`);
  const operatorToken = readBare(text, i);
  if (operatorToken.value === '') throw new ConditionSyntaxError(`missing operator: ${form}`);
  if (!isOperator(operatorToken.value)) {
    throw new ConditionSyntaxError(
      `unknown operator "${operatorToken.value}": use one of ${CONDITION_OPERATORS.join(', ')}`,
    );
  }
  i = skipSpace(text, operatorToken.end);
  if (i === operatorToken.end || i === text.length)
    throw new ConditionSyntaxError(`missing right side: ${form}`);
  let right: string;
  if (isQuote(text[i])) {
    const quoted = readQuoted(text, i);
    if (skipSpace(text, quoted.end) !== text.length) {
      throw new ConditionSyntaxError('unexpected text after the quoted right side');
    }
    right = quoted.value;
  } else {
    right = text.slice(i).trimEnd();
  }
  const condition = { left: left.value, operator: operatorToken.value, right };
  for (const side of [condition.left, condition.right]) {
    try {
      parseTemplate(side);
    } catch (error) {
      if (error instanceof ExpressionError) throw new ConditionSyntaxError(error.message);
      throw error;
    }
  }
  return condition;
}

/** The text of a condition with both sides quoted: parseCondition reads it back as the same condition. */
export function formatCondition(condition: Condition): string {
  const quote = (side: string) => `"${side.replace(/[\\"]/g, '\\$&')}"`;
  return `${quote(condition.left)} ${condition.operator} ${quote(condition.right)}`;
}

/** The expressions a condition reads, for checks at create time. */
export function conditionExpressions(condition: Condition): FoundExpression[] {
  return [condition.left, condition.right].flatMap((side) =>
    parseTemplate(side).flatMap((part) =>
      part.kind === 'expression' ? [{ path: [], expression: part.expression }] : [],
    ),
  );
}

function asNumber(text: string): number | null {
  if (!NUMBER.test(text)) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/** Compares two already interpolated sides. */
export function compare(left: string, operator: ConditionOperator, right: string): boolean {
  switch (operator) {
    case 'contains':
      return left.includes(right);
    case 'not_contains':
      return !left.includes(right);
    case 'starts_with':
      return left.startsWith(right);
    case 'ends_with':
      return left.endsWith(right);
  }
  const a = asNumber(left);
  const b = asNumber(right);
  const order = a !== null && b !== null ? Math.sign(a - b) : left < right ? -1 : left > right ? 1 : 0;
  switch (operator) {
    case '==':
      return order === 0;
    case '!=':
      return order !== 0;
    case '>':
      return order > 0;
    case '<':
      return order < 0;
    case '>=':
      return order >= 0;
    case '<=':
      return order <= 0;
  }
}

/**
 * Interpolates each side in the scope and compares. Throws ExpressionError subclasses only (a side whose
 * expression has no value is a MissingValueError, which fails the step).
 */
export function evaluateCondition(condition: Condition | string, scope: Scope): boolean {
  const parsed = typeof condition === 'string' ? parseCondition(condition) : condition;
  return compare(
    interpolateString(parsed.left, scope),
    parsed.operator,
    interpolateString(parsed.right, scope),
  );
}
