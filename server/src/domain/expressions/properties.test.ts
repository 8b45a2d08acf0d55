import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compare, evaluateCondition, formatCondition, parseCondition } from './condition.js';
import { ConditionSyntaxError, ExpressionError } from './errors.js';
import {
  interpolate,
  interpolateString,
  renameExpressions,
  type Scope,
  stringifyValue,
} from './interpolate.js';
import { escapeLiteral, listExpressions, parseTemplate } from './syntax.js';

const RUNS = { numRuns: 1_000 };

/** Strings that hit the grammar often: braces, escapes, roots, paths, operators, quotes; plus any unicode text. */
const FRAGMENTS = [
  '{{',
  '}}',
  '{',
  '}',
  '\\',
  '\\{{',
  'input',
  'steps',
  'status',
  'response',
  'name',
  'qty',
  '.',
  '0',
  '1',
  '7',
  '[',
  ']',
  '-',
  '_',
  ' ',
  '\t',
  'a',
  '"',
  "'",
  '==',
  '>=',
  '<',
  'contains',
  'ends_with',
  '__proto__',
  'constructor',
];
const tricky = fc.oneof(
  fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 24 }).map((parts) => parts.join('')),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
);
/** Well-formed expressions, so that resolution (not just parsing) gets exercised. */
const expression = fc.oneof(
  fc.constantFrom('input', 'input.qty', 'input.name', 'input.list.0', 'input.list[1]', 'input.a.b.c'),
  fc.constantFrom('steps.0.status', 'steps.1.response', 'steps.0.response.a', 'steps.1.response.list[0]'),
  fc.constantFrom('name', 'qty', 'other'),
);
const templated = fc
  .array(
    fc.oneof(
      tricky,
      expression.map((e) => `{{${e}}}`),
    ),
    { maxLength: 6 },
  )
  .map((parts) => parts.join(''));
const anyString = fc.oneof(tricky, templated);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    anyString,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(tricky, fc.constantFrom('qty', 'name', 'list', 'a', 'b', 'c')), tie('value'), {
      maxKeys: 4,
    }),
  ),
})).value;
const stepResult = fc.record({ status: anyString, response: json });
const scope: fc.Arbitrary<Scope> = fc.record(
  {
    input: json,
    steps: fc.dictionary(fc.constantFrom('0', '1', '2'), stepResult, { maxKeys: 3 }),
    placeholders: fc.dictionary(fc.constantFrom('name', 'qty', 'other', 'x'), json, { maxKeys: 4 }),
  },
  { requiredKeys: [] },
);

/** Runs `f`; an error that is not one of ours fails the property. */
function onlyOurErrors(f: () => unknown, kind: new (...args: never[]) => Error = ExpressionError): void {
  try {
    f();
  } catch (error) {
    if (!(error instanceof kind)) throw error;
  }
}

describe('interpolation properties', () => {
  it('throws nothing but ExpressionError, for any value in any scope', () => {
    fc.assert(
      fc.property(json, scope, (value, s) => {
        onlyOurErrors(() => interpolate(value, s));
        onlyOurErrors(() => listExpressions(value));
      }),
      RUNS,
    );
  });

  it('keeps the JSON type of a value that is exactly one expression, and never re-expands it', () => {
    fc.assert(
      fc.property(json, scope, (value, s) => {
        const withValue: Scope = { ...s, input: { v: value }, placeholders: { v: value } };
        expect(interpolate('{{input.v}}', withValue)).toEqual(value);
        expect(interpolate('{{ v }}', withValue)).toEqual(value);
        expect(interpolate(['x{{input.v}}'], withValue)).toEqual([`x${stringifyValue(value)}`]);
      }),
      RUNS,
    );
  });

  it('substitutes any string verbatim, braces and backslashes included', () => {
    fc.assert(
      fc.property(anyString, anyString, (a, b) => {
        const s: Scope = { placeholders: { a, b } };
        expect(interpolateString('{{a}}-{{b}}', s)).toBe(`${a}-${b}`);
      }),
      RUNS,
    );
  });

  it('reads every escaped string back as itself', () => {
    fc.assert(
      fc.property(anyString, (text) => {
        const escaped = escapeLiteral(text);
        expect(parseTemplate(escaped).every((part) => part.kind === 'text')).toBe(true);
        expect(interpolateString(escaped, {})).toBe(text);
      }),
      RUNS,
    );
  });

  it('resolves whatever listExpressions accepted, when the scope declares it', () => {
    fc.assert(
      fc.property(json, (value) => {
        let found: ReturnType<typeof listExpressions>;
        try {
          found = listExpressions(value);
        } catch (error) {
          expect(error).toBeInstanceOf(ExpressionError);
          return;
        }
        if (!found.every((f) => f.expression.kind === 'placeholder')) return;
        const placeholders = Object.fromEntries(found.map((f) => [f.expression.source, 'v']));
        expect(() => interpolate(value, { placeholders })).not.toThrow();
      }),
      RUNS,
    );
  });

  it('renaming an expression to itself changes nothing the value means', () => {
    fc.assert(
      fc.property(json, scope, (value, s) => {
        const outcome = (v: unknown) => {
          try {
            return { value: interpolate(v, s) };
          } catch (error) {
            return { error: (error as Error).message };
          }
        };
        let renamed: unknown;
        try {
          renamed = renameExpressions(value, (e) => e.source);
        } catch (error) {
          expect(error).toBeInstanceOf(ExpressionError);
          return;
        }
        expect(outcome(renamed)).toEqual(outcome(value));
      }),
      RUNS,
    );
  });
});

describe('condition properties', () => {
  it('the parser throws nothing but ConditionSyntaxError', () => {
    fc.assert(
      fc.property(anyString, (text) => onlyOurErrors(() => parseCondition(text), ConditionSyntaxError)),
      RUNS,
    );
  });

  it('the evaluator gives a boolean or an ExpressionError, for any text in any scope', () => {
    const conditionText = fc.oneof(
      anyString,
      fc
        .tuple(
          anyString,
          fc.constantFrom('==', '!=', '>', '<', '>=', '<=', 'contains', 'starts_with'),
          anyString,
        )
        .map(([l, op, r]) => `${l} ${op} ${r}`),
    );
    fc.assert(
      fc.property(conditionText, scope, (text, s) => {
        try {
          expect(typeof evaluateCondition(text, s)).toBe('boolean');
        } catch (error) {
          if (!(error instanceof ExpressionError)) throw error;
        }
      }),
      RUNS,
    );
  });

  it('values never change the shape of a condition', () => {
    fc.assert(
      fc.property(json, json, fc.constantFrom('==', '!=', '<', 'contains', 'ends_with'), (a, b, op) => {
        const s: Scope = { input: { a, b } };
        expect(evaluateCondition(`{{input.a}} ${op} {{input.b}}`, s)).toBe(
          compare(stringifyValue(a), op, stringifyValue(b)),
        );
      }),
      RUNS,
    );
  });

  it('a quoted right side reads back exactly', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), (text) => {
        const quoted = `"${text.replace(/[\\"]/g, '\\$&')}"`;
        expect(parseCondition(`x == ${quoted}`).right).toBe(text);
      }),
      RUNS,
    );
  });

  it('formatCondition gives back the same condition', () => {
    fc.assert(
      fc.property(anyString, (text) => {
        let parsed: ReturnType<typeof parseCondition>;
        try {
          parsed = parseCondition(text);
        } catch {
          return;
        }
        expect(parseCondition(formatCondition(parsed))).toEqual(parsed);
      }),
      RUNS,
    );
    const built = fc.record({
      left: anyString,
      operator: fc.constantFrom('==', 'contains', '<='),
      right: anyString,
    });
    fc.assert(
      fc.property(built, (condition) => {
        let again: ReturnType<typeof parseCondition>;
        try {
          again = parseCondition(formatCondition(condition));
        } catch (error) {
          // Only a side with a malformed expression may be refused.
          expect(error).toBeInstanceOf(ConditionSyntaxError);
          return;
        }
        expect(again).toEqual(condition);
      }),
      RUNS,
    );
  });

  it('reads an unquoted left side up to the space, whatever braces and escapes it holds', () => {
    const bare = anyString.filter((t) => t !== '' && !/\s/.test(t) && !/^["']/.test(t));
    fc.assert(
      fc.property(bare, (left) => {
        let valid = true;
        try {
          parseTemplate(left);
        } catch {
          valid = false;
        }
        if (valid) expect(parseCondition(`${left} == x`).left).toBe(left);
        else expect(() => parseCondition(`${left} == x`)).toThrow(ConditionSyntaxError);
      }),
      RUNS,
    );
  });

  it('compares numbers as numbers', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer(), (x, y) => {
        expect(compare(String(x), '<', String(y))).toBe(x < y);
        expect(compare(String(x), '==', `${y}.0`)).toBe(x === y);
      }),
      RUNS,
    );
  });
});
