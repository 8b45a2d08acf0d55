import { describe, expect, it } from 'vitest';
import {
  ExpressionError,
  ExpressionSyntaxError,
  MissingValueError,
  UnknownExpressionError,
} from './errors.js';
import { interpolate, interpolateString, renameExpressions, type Scope } from './interpolate.js';
import { escapeLiteral, listExpressions, MAX_DEPTH, parseExpression, parseTemplate } from './syntax.js';

const chain: Scope = {
  input: { customer: { email: 'ann@example.com', tags: ['vip', 'eu'] }, qty: 3, note: null },
  steps: {
    0: { status: 'executed', response: { order_id: 'A-17', items: [{ sku: 'X1', price: 9.5 }], ok: true } },
    1: { status: 'skipped', response: null },
    2: { status: 'failed', response: 'Bad Gateway' },
  },
};

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('parseExpression', () => {
  it.each([
    ['input.customer.email', { kind: 'input', path: ['customer', 'email'] }],
    ['input', { kind: 'input', path: [] }],
    ['steps.0.status', { kind: 'step_status', step: 0 }],
    ['steps.12.response', { kind: 'step_response', step: 12, path: [] }],
    ['steps.0.response.items.0.sku', { kind: 'step_response', step: 0, path: ['items', '0', 'sku'] }],
    ['steps.0.response.items[0].sku', { kind: 'step_response', step: 0, path: ['items', '0', 'sku'] }],
    ['steps.0.response.x-request-id', { kind: 'step_response', step: 0, path: ['x-request-id'] }],
    [' order_id ', { kind: 'placeholder', name: 'order_id' }],
  ])('%s', (source, expected) => {
    expect(parseExpression(source)).toMatchObject(expected);
  });

  it.each([
    '',
    'input.',
    'input..x',
    'a b',
    'steps.x.status',
    'steps.01.status',
    'steps.0',
    'steps.0.status.x',
    'steps.0.output',
    'order.id',
    'input.a[x]',
    '$where',
  ])('refuses %j', (source) => {
    expect(() => parseExpression(source)).toThrow(ExpressionSyntaxError);
  });

  it('shortens a long malformed expression in its message', () => {
    const error = thrown(() => parseExpression(`a b ${'x'.repeat(5_000)}`)) as Error;
    expect(error.message.length).toBeLessThan(200);
  });
});

describe('interpolate in a chain', () => {
  it('keeps the JSON type of a value that is exactly one expression', () => {
    expect(interpolate('{{input.qty}}', chain)).toBe(3);
    expect(interpolate('{{ steps.0.response.ok }}', chain)).toBe(true);
    expect(interpolate('{{input.note}}', chain)).toBeNull();
    expect(interpolate('{{input.customer.tags}}', chain)).toEqual(['vip', 'eu']);
    expect(interpolate('{{steps.0.response.items[0]}}', chain)).toEqual({ sku: 'X1', price: 9.5 });
  });

  it('writes values as text inside a longer string', () => {
    expect(interpolate('qty={{input.qty}}&note={{input.note}}', chain)).toBe('qty=3&note=');
    expect(interpolate('tags: {{input.customer.tags}}', chain)).toBe('tags: ["vip","eu"]');
    expect(interpolate(' {{input.qty}}', chain)).toBe(' 3');
  });

  it('walks objects and arrays, leaving keys and non-strings alone', () => {
    const body = {
      '{{input.qty}}': '{{steps.0.response.order_id}}',
      lines: [{ sku: '{{steps.0.response.items.0.sku}}', n: 2 }, true, null],
      status: 'previous step {{steps.1.status}}',
    };
    expect(interpolate(body, chain)).toEqual({
      '{{input.qty}}': 'A-17',
      lines: [{ sku: 'X1', n: 2 }, true, null],
      status: 'previous step skipped',
    });
  });

  it('reads a non-JSON response as the string it is', () => {
    expect(interpolate('{{steps.2.response}}', chain)).toBe('Bad Gateway');
    expect(interpolateString('{{steps.2.status}}: {{steps.2.response}}', chain)).toBe('failed: Bad Gateway');
  });

  it('always gives a string from interpolateString', () => {
    expect(interpolateString('{{input.qty}}', chain)).toBe('3');
    expect(interpolateString('{{steps.0.response.items}}', chain)).toBe('[{"sku":"X1","price":9.5}]');
  });

  it('never expands a substituted value again', () => {
    const scope: Scope = { input: { evil: '{{input.secret}}', secret: 's3cr3t' }, steps: {} };
    expect(interpolate('{{input.evil}}', scope)).toBe('{{input.secret}}');
    expect(interpolate('x {{input.evil}}', scope)).toBe('x {{input.secret}}');
  });

  it('names the expression and the place when a path leads nowhere', () => {
    const error = thrown(() =>
      interpolate({ body: { lines: ['ok', '{{steps.0.response.items.3.sku}}'] } }, chain),
    );
    expect(error).toBeInstanceOf(MissingValueError);
    expect((error as MissingValueError).expression).toBe('steps.0.response.items.3.sku');
    expect((error as MissingValueError).message).toBe(
      '{{steps.0.response.items.3.sku}} has no value: no "3" in steps.0.response.items',
    );
    expect((error as MissingValueError).dottedPath).toBe('body.lines.1');
  });

  it.each([
    ['{{input.missing}}', 'no "missing" in input'],
    ['{{input.qty.x}}', 'no "x" in input.qty'],
    ['{{input.customer.tags.x}}', 'no "x" in input.customer.tags'],
    ['{{steps.2.response.a}}', 'no "a" in steps.2.response'],
    ['{{steps.1.response.a}}', 'no "a" in steps.1.response'],
    ['{{steps.3.status}}', 'step 3 has not run'],
    ['{{input.constructor}}', 'no "constructor" in input'],
    ['{{input.__proto__}}', 'no "__proto__" in input'],
  ])('%s is missing: %s', (text, reason) => {
    expect(() => interpolate(text, chain)).toThrow(reason);
  });

  it('refuses placeholders in a chain and chain expressions in a template', () => {
    expect(() => interpolate('{{order_id}}', chain)).toThrow(UnknownExpressionError);
    expect(() => interpolate('{{input.x}}', { placeholders: { x: 1 } })).toThrow(UnknownExpressionError);
    expect(() => interpolate('{{steps.0.status}}', { placeholders: {} })).toThrow(UnknownExpressionError);
  });

  it('refuses values nested past the limit', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < MAX_DEPTH + 1; i++) deep = [deep];
    expect(() => interpolate(deep, chain)).toThrow(ExpressionError);
    expect(() => listExpressions(deep)).toThrow(ExpressionError);
  });
});

describe('placeholders', () => {
  const scope: Scope = { placeholders: { order_id: 'A-17', qty: 2, gift: null } };

  it('resolves {{name}} with the same type rule', () => {
    expect(interpolate({ id: '{{order_id}}', qty: '{{qty}}', note: 'gift: {{gift}}' }, scope)).toEqual({
      id: 'A-17',
      qty: 2,
      note: 'gift: ',
    });
  });

  it('refuses an undeclared placeholder', () => {
    expect(() => interpolate('{{other}}', scope)).toThrow('{{other}} is not a declared placeholder');
  });
});

describe('escapes', () => {
  it('writes a literal {{ as \\{{', () => {
    expect(interpolate('use \\{{input.qty}} for {{input.qty}}', chain)).toBe('use {{input.qty}} for 3');
  });

  it('reads \\\\{{ as a backslash before an expression', () => {
    expect(interpolate('C:\\\\{{input.qty}}', chain)).toBe('C:\\3');
    expect(interpolate('a\\\\\\{{b', chain)).toBe('a\\{{b');
  });

  it('keeps backslashes elsewhere and lone braces as they are', () => {
    expect(interpolate('C:\\temp\\x } }} {x} {', chain)).toBe('C:\\temp\\x } }} {x} {');
    expect(interpolate('{{{input.qty}}}', chain)).toBe('{3}');
    expect(interpolate('{"n": {{input.qty}}}', chain)).toBe('{"n": 3}');
  });

  it('refuses an unclosed {{ and names its position', () => {
    expect(() => interpolate('abc {{input.qty', chain)).toThrow('unclosed {{ at character 5');
  });

  it.each(['{{', 'a {{ b', '\\{{', '\\\\{{', '{{{{', 'x\\', '\\\\{{{'])(
    'escapeLiteral(%j) reads back',
    (text) => {
      expect(interpolate(escapeLiteral(text), {})).toBe(text);
    },
  );
});

describe('listExpressions', () => {
  it('lists every expression with its place', () => {
    const found = listExpressions({
      url: 'https://x/{{a}}/{{b}}',
      headers: { h: '{{steps.0.status}}' },
      n: [1, '\\{{c}}'],
    });
    expect(found.map((f) => [f.path.join('.'), f.expression.source])).toEqual([
      ['url', 'a'],
      ['url', 'b'],
      ['headers.h', 'steps.0.status'],
    ]);
  });

  it('names the place of a malformed expression', () => {
    const error = thrown(() => listExpressions({ body: { a: ['x', '{{ bad expr }}'] } }));
    expect(error).toBeInstanceOf(ExpressionSyntaxError);
    expect((error as ExpressionSyntaxError).dottedPath).toBe('body.a.1');
  });
});

describe('renameExpressions', () => {
  it('rewrites expressions and leaves literal text exactly as written', () => {
    const value = { url: '\\{{x}} {{{ name }}} C:\\\\{{name}}', keep: '{{steps.0.status}}', n: 1 };
    const renamed = renameExpressions(value, (e) => (e.kind === 'placeholder' ? `input.${e.name}` : null));
    expect(renamed).toEqual({
      url: '\\{{x}} {{{input.name}}} C:\\\\{{input.name}}',
      keep: '{{steps.0.status}}',
      n: 1,
    });
    expect(
      interpolate(renamed, { input: { name: 'N' }, steps: { 0: { status: 'executed', response: null } } }),
    ).toEqual({
      url: '{{x}} {N} C:\\N',
      keep: 'executed',
      n: 1,
    });
  });
});

describe('parseTemplate', () => {
  it('gives positions of expressions in the original string', () => {
    const parts = parseTemplate('ab{{ x }}c');
    expect(parts).toMatchObject([
      { kind: 'text', text: 'ab' },
      { kind: 'expression', start: 2, end: 9 },
      { kind: 'text', text: 'c' },
    ]);
  });
});
