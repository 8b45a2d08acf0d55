import { describe, expect, it } from 'vitest';
import {
  CONDITION_OPERATORS,
  compare,
  conditionExpressions,
  evaluateCondition,
  parseCondition,
} from './condition.js';
import { ConditionSyntaxError, MissingValueError } from './errors.js';
import type { Scope } from './interpolate.js';

const scope: Scope = {
  input: { region: 'eu-west', limit: '10', title: 'in stock', empty: null, quote: 'say "hi"' },
  steps: {
    0: { status: 'executed', response: { total: 9, label: 'Total: 9', tags: ['vip'] } },
    1: { status: 'failed', response: 'oops' },
  },
};

describe('parseCondition', () => {
  it.each([
    ['{{steps.0.status}} == executed', { left: '{{steps.0.status}}', operator: '==', right: 'executed' }],
    [
      '  {{ steps.0.status }}   !=   "executed"  ',
      { left: '{{ steps.0.status }}', operator: '!=', right: 'executed' },
    ],
    ["{{input.title}} == 'in stock'", { left: '{{input.title}}', operator: '==', right: 'in stock' }],
    ['{{input.title}} == in stock ', { left: '{{input.title}}', operator: '==', right: 'in stock' }],
    ['"a b" contains b', { left: 'a b', operator: 'contains', right: 'b' }],
    ['x == "say \\"hi\\" \\\\ ok"', { left: 'x', operator: '==', right: 'say "hi" \\ ok' }],
    ['x == ""', { left: 'x', operator: '==', right: '' }],
    ['x\t>=\t5', { left: 'x', operator: '>=', right: '5' }],
  ])('%j', (text, expected) => {
    expect(parseCondition(text)).toEqual(expected);
  });

  it.each(CONDITION_OPERATORS)('knows the operator %s', (operator) => {
    expect(parseCondition(`a ${operator} b`).operator).toBe(operator);
  });

  it.each([
    ['', 'empty condition'],
    ['   ', 'empty condition'],
    ['{{steps.0.status}}', 'missing operator'],
    ['{{steps.0.status}} ==', 'missing right side'],
    ['{{steps.0.status}} ==   ', 'missing right side'],
    ['a === b', 'unknown operator "==="'],
    ['a equals b', 'unknown operator "equals"'],
    ['a==b', 'missing operator'],
    ['"a == b', 'unclosed "'],
    ['a == "b', 'unclosed "'],
    ['a == "b" c', 'unexpected text after the quoted right side'],
    ['"a"== b', 'expected a space after the left side'],
    ['{{nope.x}} == 1', 'expressions start with input, steps'],
    ['{{input.x == 1', 'unclosed {{'],
    ['a == {{steps.0}}', 'a step is read as {{steps.0.status}}'],
    ['a == {{steps.x.status}}', 'expected a step index'],
  ])('refuses %j (%s)', (text, message) => {
    expect(() => parseCondition(text)).toThrow(ConditionSyntaxError);
    expect(() => parseCondition(text)).toThrow(message);
  });

  it('lists the expressions it reads', () => {
    const found = conditionExpressions(parseCondition('{{steps.0.status}} == "{{input.x}}-{{input.y}}"'));
    expect(found.map((f) => f.expression.source)).toEqual(['steps.0.status', 'input.x', 'input.y']);
  });
});

describe('compare', () => {
  it.each([
    ['10', '>', '9', true],
    ['10', '>', '9.5e0', true],
    ['1.0', '==', '1', true],
    ['-2', '<', '+1', true],
    ['.5', '==', '0.5', true],
    ['10', '<=', '10', true],
    ['0x10', '==', '16', false],
    ['Infinity', '>', '1', true],
    ['', '==', '0', false],
    [' 1', '==', '1', false],
    ['b', '>', 'a', true],
    ['B', '<', 'a', true],
    ['10', '>', 'nine', false],
    ['abc', '!=', 'ABC', true],
    ['hello world', 'contains', 'o w', true],
    ['hello', 'not_contains', 'z', true],
    ['100', 'starts_with', '10', true],
    ['1e3', 'ends_with', 'e3', true],
    ['abc', 'contains', '', true],
  ] as const)('%j %s %j is %s', (left, operator, right, expected) => {
    expect(compare(left, operator, right)).toBe(expected);
  });
});

describe('evaluateCondition', () => {
  it.each([
    ['{{steps.0.status}} == executed', true],
    ['{{steps.1.status}} == executed', false],
    ['{{steps.1.status}} != executed', true],
    ['{{steps.0.response.total}} < {{input.limit}}', true],
    ['{{steps.0.response.total}} > 10', false],
    ['{{steps.0.response.label}} starts_with "Total:"', true],
    ['{{steps.0.response.tags}} contains vip', true],
    ['{{input.region}} ends_with -west', true],
    ['{{input.title}} == in stock', true],
    ['{{input.empty}} == ""', true],
    ['{{input.quote}} == "say \\"hi\\""', true],
    ['{{steps.1.response}} not_contains ok', true],
    ['"{{input.region}}/x" == eu-west/x', true],
  ])('%s -> %s', (condition, expected) => {
    expect(evaluateCondition(condition, scope)).toBe(expected);
  });

  it('never lets a value change the shape of the condition', () => {
    const tricky: Scope = { input: { a: 'x == x', b: 'x' } };
    expect(evaluateCondition('{{input.a}} == x', tricky)).toBe(false);
    expect(evaluateCondition('{{input.b}} == x', tricky)).toBe(true);
  });

  it('fails with the missing expression named', () => {
    expect(() => evaluateCondition('{{steps.0.response.nope}} == 1', scope)).toThrow(MissingValueError);
    expect(() => evaluateCondition('{{steps.5.status}} == executed', scope)).toThrow('step 5 has not run');
  });
});
