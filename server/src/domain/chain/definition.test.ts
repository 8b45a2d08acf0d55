import { ChainCreateBody, type ChainCreateParsed } from '@sched/contract';
import { describe, expect, it } from 'vitest';
import { chainStepErrors } from './definition.js';

function parse(steps: unknown[], input: Record<string, unknown> = {}): ChainCreateParsed {
  return ChainCreateBody.parse({ name: 'c', steps, input });
}

const order = {
  name: 'order',
  type: 'http_call',
  url: 'https://shop.example/orders',
  body: { sku: '{{input.sku}}', qty: '{{input.qty}}' },
};
const approve = {
  name: 'approve',
  type: 'gated',
  gate: { message: 'Ship order {{steps.0.response.order_id}}?', recipients: ['{{input.manager}}'] },
};
const fulfil = {
  name: 'fulfil',
  type: 'http_call',
  url: 'https://warehouse.example/orders/{{steps.0.response.order_id}}',
  headers: { 'X-Approved': '{{steps.1.status}}' },
  condition: '{{steps.1.status}} == confirmed',
};
const input = { sku: 'X1', qty: 2, manager: 'boss@example.com' };

describe('chainStepErrors', () => {
  it('accepts the order -> approval -> fulfilment chain', () => {
    const chain = parse([order, approve, fulfil, { name: 'w', type: 'wait', wait: '1h' }], input);
    expect(chainStepErrors(chain.steps, { input: chain.input })).toEqual({});
  });

  it('names each bad condition and expression by its path', () => {
    const chain = parse(
      [
        {
          ...order,
          condition: '{{steps.0.status}} == executed',
          body: { lines: [{ sku: '{{ bad expr }}' }] },
        },
        { ...approve, condition: 'status is done' },
        { ...fulfil, url: 'https://x/{{steps.2.response.id}}', headers: { A: '{{order_id}}' } },
        { ...fulfil, condition: '{{steps.9.status}} == executed', body: '{{input.nope}}' },
      ],
      input,
    );
    const errors = chainStepErrors(chain.steps, { input: chain.input });
    expect(errors).toEqual({
      'steps.0.condition': ['{{steps.0.status}} reads step 0, which has not run when step 0 starts'],
      'steps.0.body.lines.0.sku': [expect.stringContaining('is not an expression')],
      'steps.1.condition': [
        'unknown operator "is": use one of ==, !=, >, <, >=, <=, contains, not_contains, starts_with, ends_with',
      ],
      'steps.2.url': ['{{steps.2.response.id}} reads step 2, which has not run when step 2 starts'],
      'steps.2.headers.A': [expect.stringContaining('{{order_id}} is not an expression of chains')],
      'steps.3.condition': ['{{steps.9.status}} reads step 9, which has not run when step 3 starts'],
      'steps.3.body': ["{{input.nope}} reads a value the chain's input does not have"],
    });
  });

  it('checks gate messages and recipients', () => {
    const chain = parse([
      { ...approve, gate: { message: 'Hi {{', recipients: ['{{steps.1.status}}'] } },
      order,
    ]);
    expect(Object.keys(chainStepErrors(chain.steps, { input }))).toEqual([
      'steps.0.gate.message',
      'steps.0.gate.recipients.0',
    ]);
  });

  it('takes placeholders in chain templates, as {{name}} or {{input.name}}', () => {
    const chain = parse([
      { ...order, url: 'https://x/{{customer}}', body: { c: '{{input.customer}}', d: '{{input.other}}' } },
      approve,
      { ...fulfil, condition: '{{tier}} == gold' },
    ]);
    const errors = chainStepErrors(
      chain.steps,
      { placeholders: new Set(['customer', 'manager']) },
      'chain_steps',
    );
    expect(errors).toEqual({
      'chain_steps.2.condition': ['{{tier}} is not a declared placeholder'],
      'chain_steps.0.body.d': ['{{input.other}} is not a declared placeholder'],
    });
  });

  it('refuses URLs that could never use an allowed scheme, and delays out of range', () => {
    const chain = parse([
      { ...order, url: 'http://shop.example/{{input.sku}}' },
      { ...order, url: '{{input.sku}}' },
      { name: 'd', type: 'delay', delay: '0s' },
      { name: 'w', type: 'wait', wait: '99999w' },
    ]);
    expect(chainStepErrors(chain.steps, { urlSchemes: ['https:'] })).toEqual({
      'steps.0.url': ['must use https'],
      'steps.2.delay': ['must be more than 0 and at most 10 years'],
      'steps.3.wait': ['must be more than 0 and at most 10 years'],
    });
    expect(chainStepErrors(chain.steps, { urlSchemes: ['https:', 'http:'] })['steps.0.url']).toBeUndefined();
  });

  it('leaves literal fields alone', () => {
    const chain = parse([
      { ...order, name: 'step {{x}}' },
      { name: 'w', type: 'delay', delay: '5m' },
    ]);
    expect(chainStepErrors(chain.steps)).toEqual({});
  });
});
