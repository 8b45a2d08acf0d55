import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  PlaceholderDefinition,
  Template,
  TemplateCreateBody,
  TemplateUpdateBody,
  templateShapeIssues,
  TriggerAnswer,
  TriggerBody,
} from './template.js';

function errorsOf(schema: z.ZodType, value: unknown): Record<string, string[]> {
  const result = schema.safeParse(value);
  if (result.success) return {};
  const errors: Record<string, string[]> = {};
  for (const issue of result.error.issues) {
    const key = issue.path.join('.');
    errors[key] = [...(errors[key] ?? []), issue.message];
  }
  return errors;
}

const webhook = {
  name: 'Order {{order_id}}',
  mode: 'webhook',
  request_config: { url: 'https://shop.example/orders/{{order_id}}', body: { qty: '{{qty}}' } },
  placeholders: [
    { name: 'order_id', required: true },
    { name: 'qty', default: 1 },
  ],
  dedup_keys: ['order:{{order_id}}'],
};

describe('TemplateCreateBody', () => {
  it('accepts a webhook template and fills placeholder defaults', () => {
    const parsed = TemplateCreateBody.parse(webhook);
    expect(parsed.placeholders).toEqual([
      { name: 'order_id', required: true },
      { name: 'qty', required: false, default: 1 },
    ]);
    expect(parsed.request_config?.method).toBe('POST');
  });

  it('accepts a default of any JSON type', () => {
    for (const value of ['x', 3, true, null, [1, 'a'], { a: { b: 1 } }]) {
      expect(PlaceholderDefinition.parse({ name: 'p', default: value }).default).toEqual(value);
    }
  });

  it('requires the configuration of its type and mode', () => {
    expect(errorsOf(TemplateCreateBody, { name: 't' })).toEqual({
      mode: ['is required for an action template'],
    });
    expect(errorsOf(TemplateCreateBody, { name: 't', mode: 'webhook' })).toEqual({
      request_config: ['is required in webhook mode'],
    });
    expect(errorsOf(TemplateCreateBody, { name: 't', mode: 'approval' })).toEqual({
      gate_config: ['is required in approval mode'],
    });
    expect(errorsOf(TemplateCreateBody, { name: 't', type: 'chain' })).toEqual({
      chain_steps: ['is required for a chain template'],
    });
  });

  it('accepts a chain template with step aliases and a `wait` field', () => {
    const body = {
      name: 'Onboard {{customer}}',
      type: 'chain',
      chain_steps: [
        { name: 'create', type: 'webhook', url: 'https://crm.example/{{customer}}' },
        { name: 'w', type: 'wait', wait: '1h' },
      ],
      chain_error_handling: 'skip_step',
      placeholders: [{ name: 'customer', required: true }],
    };
    expect(TemplateCreateBody.safeParse(body).success).toBe(true);
    expect(
      Object.keys(errorsOf(TemplateCreateBody, { ...body, chain_steps: body.chain_steps.slice(1) })),
    ).toEqual(['chain_steps']);
  });

  it('names the bad placeholder definitions', () => {
    const errors = errorsOf(TemplateCreateBody, {
      ...webhook,
      placeholders: [
        { name: 'ok' },
        { name: 'has space' },
        { name: 'ok' },
        { name: 'steps' },
        { name: 'need', required: true, default: 'x' },
        { name: '' },
      ],
    });
    expect(Object.keys(errors).sort()).toEqual([
      'placeholders.1.name',
      'placeholders.2.name',
      'placeholders.3.name',
      'placeholders.4.default',
      'placeholders.5.name',
    ]);
    expect(errors['placeholders.2.name']).toEqual(['is declared twice']);
  });

  it('limits name, description and dedup keys', () => {
    const errors = errorsOf(TemplateCreateBody, {
      ...webhook,
      name: 'n'.repeat(256),
      description: 'd'.repeat(1001),
      dedup_keys: Array.from({ length: 11 }, (_, i) => `k${i}`),
    });
    expect(Object.keys(errors).sort()).toEqual(['dedup_keys', 'description', 'name']);
  });
});

describe('TemplateUpdateBody', () => {
  it('accepts any subset of the fields, the empty one included', () => {
    expect(TemplateUpdateBody.safeParse({}).success).toBe(true);
    expect(TemplateUpdateBody.safeParse({ description: 'new' }).success).toBe(true);
    expect(Object.keys(errorsOf(TemplateUpdateBody, { name: '' }))).toEqual(['name']);
  });

  it('leaves the type and mode rules to the merged template', () => {
    expect(templateShapeIssues({ type: 'action', mode: 'webhook', request_config: {} })).toEqual([]);
    expect(templateShapeIssues({ type: 'chain', mode: 'webhook' })).toHaveLength(1);
  });
});

describe('TriggerBody', () => {
  it('keeps every value next to an optional schedule', () => {
    expect(TriggerBody.parse({ order_id: 'A1', qty: 2, schedule: { wait: '10m' } })).toEqual({
      order_id: 'A1',
      qty: 2,
      schedule: { wait: '10m' },
    });
    expect(Object.keys(errorsOf(TriggerBody, { schedule: { wait: 'later' } }))).toEqual(['schedule.wait']);
  });
});

describe('OpenAPI readiness', () => {
  it('converts every template schema to JSON Schema both ways', () => {
    for (const schema of [TemplateCreateBody, TemplateUpdateBody, Template, TriggerBody, TriggerAnswer]) {
      for (const io of ['input', 'output'] as const) {
        expect(() =>
          z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }),
        ).not.toThrow();
      }
    }
  });
});
