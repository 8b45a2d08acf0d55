import { type ChainContext, ChainStepInput } from '@sched/contract';
import { describe, expect, it } from 'vitest';
import { ExpressionError, MissingValueError } from '../expressions/errors.js';
import type { DelayStepParsed, GatedStepParsed, HttpCallStepParsed } from './definition.js';
import {
  chainScope,
  conditionHolds,
  delayMs,
  expressionFailure,
  interpolateGate,
  resolveHttpCall,
  stepResponse,
} from './resolve.js';

const context: ChainContext = {
  steps: {
    0: { status: 'executed', response: { order_id: 'A-17', total: 42, lines: [{ sku: 'X1' }] } },
    1: { status: 'confirmed', response: null },
  },
};
const scope = chainScope({ customer: 'Ann', priority: 2 }, context);

function caught(run: () => unknown): ExpressionError {
  try {
    run();
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw error;
  }
  throw new Error('expected an ExpressionError');
}

describe('resolveHttpCall', () => {
  const step = ChainStepInput.parse({
    name: 'fulfil',
    type: 'webhook',
    url: 'https://warehouse.example/orders/{{steps.0.response.order_id}}?p={{input.priority}}',
    headers: { 'X-Total': '{{steps.0.response.total}}' },
    body: {
      order: '{{steps.0.response.order_id}}',
      total: '{{steps.0.response.total}}',
      who: 'for {{input.customer}}',
    },
  }) as HttpCallStepParsed;

  it('interpolates URL, header values (as strings) and body (typed)', () => {
    expect(resolveHttpCall(step, scope, true)).toEqual({
      url: 'https://warehouse.example/orders/A-17?p=2',
      method: 'POST',
      headers: { 'X-Total': '42' },
      body: { order: 'A-17', total: 42, who: 'for Ann' },
    });
  });

  it('says which field had the missing value', () => {
    const error = caught(() =>
      resolveHttpCall({ ...step, headers: { 'X-Line': '{{steps.0.response.lines.1.sku}}' } }, scope, true),
    );
    expect(error).toBeInstanceOf(MissingValueError);
    expect(expressionFailure(error)).toBe(
      'headers.X-Line: {{steps.0.response.lines.1.sku}} has no value: no "1" in steps.0.response.lines',
    );
    expect(
      expressionFailure(caught(() => resolveHttpCall({ ...step, body: ['{{input.x}}'] }, scope, true))),
    ).toBe('body.0: {{input.x}} has no value: no "x" in input');
  });
});

describe("resolveHttpCall: whose input may write a step's origin", () => {
  const hostStep = ChainStepInput.parse({
    name: 'call',
    type: 'webhook',
    url: 'https://{{input.tenant}}.hooks.example.com/orders',
  }) as HttpCallStepParsed;
  const evil = chainScope({ tenant: 'evil.example.net/x?' }, { steps: {} });

  it("writes the owner's own input into the host (a chain created through the API)", () => {
    expect(resolveHttpCall(hostStep, evil, true).url).toBe(
      'https://evil.example.net/x?.hooks.example.com/orders',
    );
  });

  it("refuses a trigger's value in the host without allowed_origins (a chain a template's trigger made)", () => {
    expect(expressionFailure(caught(() => resolveHttpCall(hostStep, evil, false)))).toMatch(
      /^url: \{\{input\.tenant\}\}: an expression in the scheme or host needs allowed_origins/,
    );
  });

  it("keeps a trigger's value in the host to allowed_origins", () => {
    const allowed = { ...hostStep, allowed_origins: ['https://a.hooks.example.com'] };
    expect(resolveHttpCall(allowed, chainScope({ tenant: 'a' }, { steps: {} }), false).url).toBe(
      'https://a.hooks.example.com/orders',
    );
    expect(() => resolveHttpCall(allowed, evil, false)).toThrow(ExpressionError);
  });
});

describe('interpolateGate', () => {
  it('interpolates message and recipients and keeps the rest', () => {
    const step = ChainStepInput.parse({
      name: 'approve',
      type: 'approval',
      gate: {
        message: 'Ship {{steps.0.response.order_id}} for {{input.customer}}?',
        recipients: ['{{input.customer}}@example.com'],
      },
    }) as GatedStepParsed;
    expect(interpolateGate(step, scope)).toMatchObject({
      message: 'Ship A-17 for Ann?',
      recipients: ['Ann@example.com'],
      timeout: '7d',
    });
    const bad = { ...step, gate: { ...step.gate, recipients: ['a@example.com', '{{input.boss}}'] } };
    expect(expressionFailure(caught(() => interpolateGate(bad, scope)))).toMatch(/^gate\.recipients\.1: /);
  });
});

describe('conditionHolds', () => {
  it('runs a step without a condition, and reads one that has it', () => {
    expect(conditionHolds(undefined, scope)).toBe(true);
    expect(conditionHolds('{{steps.1.status}} == confirmed', scope)).toBe(true);
    expect(conditionHolds('{{steps.0.response.total}} > 100', scope)).toBe(false);
    expect(caught(() => conditionHolds('{{steps.2.status}} == executed', scope)).dottedPath).toBe(
      'condition',
    );
  });
});

describe('stepResponse', () => {
  it.each([
    ['{"order_id":"A-17"}', { order_id: 'A-17' }],
    ['[1,2]', [1, 2]],
    ['42', 42],
    ['"text"', 'text'],
    ['<html>oops</html>', '<html>oops</html>'],
    ['{"truncated":', '{"truncated":'],
    ['', null],
    ['  \n', null],
    [null, null],
    [undefined, null],
  ])('%j -> %j', (body, expected) => {
    expect(stepResponse(body)).toEqual(expected);
  });
});

describe('delayMs', () => {
  it('reads delay or its alias wait', () => {
    const delay = ChainStepInput.parse({ name: 'd', type: 'delay', delay: '3s' }) as DelayStepParsed;
    const wait = ChainStepInput.parse({ name: 'w', type: 'wait', wait: '2h' }) as DelayStepParsed;
    expect(delayMs(delay)).toBe(3_000);
    expect(delayMs(wait)).toBe(7_200_000);
  });
});

describe('stepResponse depth bound: deep JSON never stalls a chain', () => {
  it('keeps a body nested deeper than the bound as text', () => {
    const deep = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    expect(stepResponse(deep)).toBe(deep);
    expect(stepResponse('{"a":{"b":[1]}}')).toEqual({ a: { b: [1] } });
  });
});
