import { ChainStepInput, TemplateCreateBody } from '@sched/contract';
import { describe, expect, it } from 'vitest';
import { chainScope, resolveHttpCall } from '../chain/resolve.js';
import { chainStepErrors, type HttpCallStepParsed } from '../chain/definition.js';
import { ORIGIN_EXPRESSION_NEEDS_ALLOWLIST } from '../expressions/url.js';
import { evaluateCondition } from '../expressions/condition.js';
import {
  InvalidPlaceholderError,
  MissingPlaceholderError,
  placeholderValues,
  resolveActionTemplate,
  resolveChainTemplate,
  storedTemplateErrors,
  templatePlaceholderErrors,
} from './placeholders.js';

const webhook = TemplateCreateBody.parse({
  name: 'Order {{order_id}}',
  mode: 'webhook',
  request_config: {
    url: 'https://shop.example/orders/{{order_id}}?src={{source}}',
    headers: { 'X-Order': '{{order_id}}', 'X-Qty': '{{qty}}' },
    body: { order: '{{order_id}}', qty: '{{qty}}', note: 'from {{source}}', literal: '\\{{order_id}}', n: 1 },
  },
  placeholders: [
    { name: 'order_id', required: true },
    { name: 'qty', type: 'integer', default: 1 },
    { name: 'source', default: 'web' },
    { name: 'note' },
  ],
  dedup_keys: ['order:{{order_id}}'],
});
const definitions = webhook.placeholders ?? [];

describe('placeholderValues', () => {
  it('takes supplied values, then defaults, then null, and lists unknown keys', () => {
    expect(
      placeholderValues(definitions, { order_id: 'A-17', qty: 3, extra: 'x', schedule: { wait: '1m' } }),
    ).toEqual({
      values: { order_id: 'A-17', qty: 3, source: 'web', note: null },
      ignored: ['extra'],
    });
  });

  it('treats absent, null and empty values as not supplied', () => {
    expect(placeholderValues(definitions, { order_id: 'A', qty: '', source: null }).values).toEqual({
      order_id: 'A',
      qty: 1,
      source: 'web',
      note: null,
    });
  });

  it('names every missing required placeholder', () => {
    const defs = [...definitions, { name: 'email', required: true }];
    expect(() => placeholderValues(defs, { order_id: '' })).toThrow(MissingPlaceholderError);
    expect(() => placeholderValues(defs, { order_id: '' })).toThrow(
      'missing value for required placeholders order_id, email',
    );
    try {
      placeholderValues(defs, {});
    } catch (error) {
      expect((error as MissingPlaceholderError).names).toEqual(['order_id', 'email']);
    }
  });

  it('ignores inherited keys, and refuses an object for a placeholder without a type', () => {
    const values = Object.create({ order_id: 'inherited' }) as Record<string, unknown>;
    expect(() => placeholderValues(definitions, values)).toThrow(MissingPlaceholderError);
    expect(() => placeholderValues(definitions, { order_id: { $ne: null, role: 'admin' } })).toThrow(
      InvalidPlaceholderError,
    );
  });
});

describe('resolveActionTemplate', () => {
  it('resolves name, URL, headers, body and dedup keys', () => {
    const { values } = placeholderValues(definitions, { order_id: 'A-17', qty: 3 });
    const resolved = resolveActionTemplate(webhook, values);
    expect(resolved.name).toBe('Order A-17');
    expect(resolved.request_config).toEqual({
      url: 'https://shop.example/orders/A-17?src=web',
      method: 'POST',
      headers: { 'X-Order': 'A-17', 'X-Qty': '3' },
      body: { order: 'A-17', qty: 3, note: 'from web', literal: '{{order_id}}', n: 1 },
    });
    expect(resolved.dedup_keys).toEqual(['order:A-17']);
    expect(resolved.placeholders).toBe(webhook.placeholders);
  });

  it('never expands a value that holds {{...}}', () => {
    const { values } = placeholderValues(definitions, { order_id: '{{source}}' });
    expect(resolveActionTemplate(webhook, values).name).toBe('Order {{source}}');
  });

  it('resolves the gate message and recipients of an approval template', () => {
    const approval = TemplateCreateBody.parse({
      name: 'Approve {{what}}',
      mode: 'approval',
      gate_config: { message: 'Please approve {{what}}', recipients: ['{{approver}}', 'ops@example.com'] },
      placeholders: [
        { name: 'what', required: true },
        { name: 'approver', default: 'boss@example.com' },
      ],
    });
    const { values } = placeholderValues(approval.placeholders ?? [], { what: 'the budget' });
    expect(resolveActionTemplate(approval, values).gate_config).toMatchObject({
      message: 'Please approve the budget',
      recipients: ['boss@example.com', 'ops@example.com'],
      timeout: '7d',
    });
  });
});

describe('templatePlaceholderErrors', () => {
  it('accepts a template that declares what it uses', () => {
    expect(templatePlaceholderErrors({ type: 'action', config: webhook }, definitions)).toEqual({});
  });

  it('names undeclared, malformed and chain-only expressions by path', () => {
    const bad = TemplateCreateBody.parse({
      ...webhook,
      name: 'Order {{orderid}}',
      request_config: { url: 'https://x/{{order_id', body: { a: ['{{steps.0.status}}'] } },
      dedup_keys: ['k:{{input.x}}'],
    });
    expect(templatePlaceholderErrors({ type: 'action', config: bad }, definitions)).toEqual({
      name: ['{{orderid}} is not a declared placeholder'],
      'request_config.url': [expect.stringContaining('unclosed {{')],
      'request_config.body.a.0': [expect.stringContaining('only works in chain steps')],
      'dedup_keys.0': [expect.stringContaining('only works in chain steps')],
    });
  });

  it('refuses a request URL that could never be https', () => {
    const http = { ...webhook, request_config: { ...webhook.request_config!, url: 'http://x/{{order_id}}' } };
    expect(templatePlaceholderErrors({ type: 'action', config: http }, definitions, ['https:'])).toEqual({
      'request_config.url': ['must use https'],
    });
    expect(templatePlaceholderErrors({ type: 'action', config: webhook }, definitions, ['https:'])).toEqual(
      {},
    );
  });

  it('checks a chain template name and steps', () => {
    const chain = TemplateCreateBody.parse({
      name: 'Onboard {{customer}} {{x}}',
      type: 'chain',
      chain_steps: [
        { name: 'a', type: 'webhook', url: 'https://crm.example/{{customer}}' },
        { name: 'b', type: 'webhook', url: 'https://x/{{y}}', condition: '{{steps.0.status}} == executed' },
      ],
      placeholders: [{ name: 'customer', required: true }],
    });
    const config = { name: chain.name, chain_steps: chain.chain_steps ?? [] };
    expect(templatePlaceholderErrors({ type: 'chain', config }, chain.placeholders ?? [])).toEqual({
      name: ['{{x}} is not a declared placeholder'],
      'chain_steps.1.url': ['{{y}} is not a declared placeholder'],
    });
  });
});

describe('resolveChainTemplate', () => {
  const chain = TemplateCreateBody.parse({
    name: 'Onboard {{customer}}',
    type: 'chain',
    chain_steps: [
      {
        name: 'create',
        type: 'webhook',
        url: 'https://crm.example/{{customer}}',
        headers: { 'X-Tier': '{{tier}}' },
        body: { tier: '{{tier}}', c: '{{input.customer}}' },
      },
      {
        name: 'approve',
        type: 'approval',
        gate: { message: 'Welcome {{customer}}? id {{steps.0.response.id}}', recipients: ['{{approver}}'] },
        condition: '{{tier}} == "gold"',
      },
      { name: 'pause', type: 'wait', wait: '1h' },
    ],
    placeholders: [
      { name: 'customer', required: true },
      { name: 'tier', default: 'gold' },
      { name: 'approver', default: 'boss@example.com' },
    ],
  });
  const { values } = placeholderValues(chain.placeholders ?? [], { customer: 'Ann == gold' });
  const resolved = resolveChainTemplate({ name: chain.name, chain_steps: chain.chain_steps ?? [] }, values);

  it('resolves the name and hands the values over as chain input', () => {
    expect(resolved.name).toBe('Onboard Ann == gold');
    expect(resolved.input).toEqual({ customer: 'Ann == gold', tier: 'gold', approver: 'boss@example.com' });
  });

  it('turns placeholders in the steps into input references', () => {
    expect(resolved.steps[0]).toMatchObject({
      url: 'https://crm.example/{{input.customer}}',
      headers: { 'X-Tier': '{{input.tier}}' },
      body: { tier: '{{input.tier}}', c: '{{input.customer}}' },
    });
    expect(resolved.steps[1]).toMatchObject({
      condition: '"{{input.tier}}" == "gold"',
      gate: {
        message: 'Welcome {{input.customer}}? id {{steps.0.response.id}}',
        recipients: ['{{input.approver}}'],
      },
    });
    expect(resolved.steps[2]).toEqual(chain.chain_steps?.[2]);
  });

  it('gives a chain that reads the values when its steps start', () => {
    const scope = chainScope(resolved.input, { steps: { 0: { status: 'executed', response: { id: 7 } } } });
    expect(resolveHttpCall(resolved.steps[0] as HttpCallStepParsed, scope, false)).toMatchObject({
      url: 'https://crm.example/Ann%20%3D%3D%20gold',
      body: { tier: 'gold', c: 'Ann == gold' },
    });
    expect(evaluateCondition(resolved.steps[1]?.condition ?? '', scope)).toBe(true);
  });
});

describe('typed placeholders: deep values and objects where text was meant are refused', () => {
  const typed = TemplateCreateBody.parse({
    name: 'x',
    mode: 'webhook',
    request_config: { url: 'https://shop.example/{{id}}' },
    placeholders: [
      { name: 'id', required: true, pattern: '^[A-Z]-[0-9]+$', max_length: 10 },
      { name: 'qty', type: 'integer', default: 1 },
      { name: 'price', type: 'number' },
      { name: 'gift', type: 'boolean' },
      { name: 'tier', enum: ['gold', 'silver'] },
      { name: 'note' },
    ],
  }).placeholders!;

  it('coerces form strings to the declared type; anonymous values are strings', () => {
    const { values } = placeholderValues(typed, {
      id: 'A-17',
      qty: '3',
      price: '9.5',
      gift: 'true',
      tier: 'gold',
      note: 12,
    });
    expect(values).toEqual({ id: 'A-17', qty: 3, price: 9.5, gift: true, tier: 'gold', note: '12' });
    expect(Object.getPrototypeOf(values)).toBeNull();
    expect(placeholderValues(typed, { id: 'A-1', qty: 4, gift: false }).values).toMatchObject({
      qty: 4,
      gift: false,
    });
  });

  it('names each placeholder whose value does not fit', () => {
    const bad = () =>
      placeholderValues(typed, {
        id: 'a-1',
        qty: '3.5',
        price: 'cheap',
        gift: 'maybe',
        tier: 'bronze',
        note: { $ne: null, role: 'admin' },
      });
    expect(bad).toThrow(InvalidPlaceholderError);
    try {
      bad();
    } catch (error) {
      expect(Object.keys((error as InvalidPlaceholderError).errors).sort()).toEqual(
        ['gift', 'id', 'note', 'price', 'qty', 'tier'].sort(),
      );
    }
    expect(() => placeholderValues(typed, { id: 'A-12345678901' })).toThrow(/at most 10/);
  });

  it('refuses __proto__, constructor and prototype as names, and a pattern that is not a regular expression', () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const res = TemplateCreateBody.safeParse({
        name: 'x',
        mode: 'webhook',
        request_config: { url: 'https://a.example' },
        placeholders: [{ name }],
      });
      expect(res.success, name).toBe(false);
    }
    const res = TemplateCreateBody.safeParse({
      name: 'x',
      mode: 'webhook',
      request_config: { url: 'https://a.example' },
      placeholders: [
        { name: 'a', pattern: '([' },
        { name: 'b', type: 'integer', default: 'x' },
      ],
    });
    expect(res.success).toBe(false);
    expect(res.error!.issues.map((i) => i.path.join('.')).sort()).toEqual([
      'placeholders.0.pattern',
      'placeholders.1.default',
    ]);
  });

  it('a supplied key named __proto__ sets nothing on the value map', () => {
    const supplied = JSON.parse('{"__proto__": {"polluted": 1}, "id": "A-1"}');
    const { values, ignored } = placeholderValues(typed, supplied);
    expect(ignored).toEqual(['__proto__']);
    expect((values as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('storedTemplateErrors: a template saved before allowed_origins existed', () => {
  // As an older release stored them: a host taken from a value, and no allowed_origins.
  const legacyChain = {
    type: 'chain' as const,
    name: 'legacy chain',
    placeholders: [{ name: 'tenant', required: true }],
    chain_steps: [
      ChainStepInput.parse({ name: 'wait', type: 'wait', delay: '1s' }),
      ChainStepInput.parse({
        name: 'call',
        type: 'webhook',
        url: 'https://{{tenant}}.hooks.example.com/orders',
        headers: { Authorization: 'Bearer chain-SECRET' },
      }),
    ],
  };

  it('fails the save-time rule: a host from a trigger value needs allowed_origins', () => {
    expect(storedTemplateErrors(legacyChain)).toEqual({
      'chain_steps.1.url': [ORIGIN_EXPRESSION_NEEDS_ALLOWLIST],
    });
    const pathPrefix = {
      type: 'action' as const,
      name: 'legacy action',
      placeholders: [{ name: 'path', required: true }],
      request_config: { url: 'https://api.example.com{{path}}', method: 'POST', headers: {} },
      allowed_origins: [],
    };
    expect(storedTemplateErrors(pathPrefix)).toEqual({
      'request_config.url': [ORIGIN_EXPRESSION_NEEDS_ALLOWLIST],
    });
  });

  it('passes once the step names its allowed origins', () => {
    const [wait, call] = legacyChain.chain_steps;
    const fixed = {
      ...legacyChain,
      chain_steps: [wait!, { ...call!, allowed_origins: ['https://a.hooks.example.com'] }],
    };
    expect(storedTemplateErrors(fixed)).toEqual({});
  });

  it("holds a chain its trigger made to the same rule (the values are the chain's input)", () => {
    const steps = resolveChainTemplate(legacyChain, { tenant: 'x' }).steps;
    expect(chainStepErrors(steps, { input: { tenant: 'x' } })).toEqual({});
    expect(chainStepErrors(steps, { input: { tenant: 'x' }, triggeredInput: true })).toEqual({
      'steps.1.url': [ORIGIN_EXPRESSION_NEEDS_ALLOWLIST],
    });
  });
});
