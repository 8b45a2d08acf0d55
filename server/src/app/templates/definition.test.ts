import { describe, expect, it } from 'vitest';
import {
  definitionErrors,
  EMPTY_DEFINITION,
  mergeDefinition,
  type TemplateDefinition,
} from './definition.js';

const webhook: TemplateDefinition = {
  ...EMPTY_DEFINITION,
  name: 'Order {{order_id}}',
  mode: 'webhook',
  request_config: { url: 'https://shop.example.com/{{order_id}}', method: 'POST', headers: {} },
  placeholders: [{ name: 'order_id', required: true }],
};
const business = { plan: 'business' as const, allowPrivateDestinations: false };

describe('template definition checks at save time', () => {
  it('accepts a complete webhook template', () => {
    expect(definitionErrors(webhook, business)).toEqual({});
  });

  it('names undeclared placeholders, impossible URLs and a literal URL the destination policy refuses', () => {
    expect(definitionErrors({ ...webhook, placeholders: [] }, business)).toMatchObject({
      name: [expect.stringContaining('{{order_id}}')],
      'request_config.url': [expect.stringContaining('{{order_id}}')],
    });
    const ftp = { ...webhook, request_config: { ...webhook.request_config!, url: 'ftp://{{order_id}}/x' } };
    expect(definitionErrors(ftp, business)['request_config.url']).toEqual([
      'must use https',
      expect.stringContaining('allowed_origins'),
    ]);
    const loopback = {
      ...webhook,
      request_config: { ...webhook.request_config!, url: 'https://127.0.0.1/x' },
    };
    expect(definitionErrors(loopback, business)['request_config.url']?.[0]).toMatch(/private|loopback/);
    expect(definitionErrors(loopback, { ...business, allowPrivateDestinations: true })).toEqual({});
  });

  it('checks the shape, the timezone and the plan cap of max_attempts', () => {
    expect(definitionErrors({ ...webhook, request_config: null }, business)).toHaveProperty('request_config');
    expect(definitionErrors({ ...webhook, mode: null }, business)).toHaveProperty('mode');
    expect(definitionErrors({ ...webhook, timezone: 'Mars/Olympus' }, business)).toHaveProperty('timezone');
    expect(definitionErrors({ ...webhook, max_attempts: 5 }, { ...business, plan: 'free' })).toHaveProperty(
      'max_attempts',
    );
    const chain = { ...EMPTY_DEFINITION, name: 'c', type: 'chain' as const };
    expect(definitionErrors(chain, business)).toEqual({ chain_steps: ['is required for a chain template'] });
  });
});

describe('mergeDefinition', () => {
  it('replaces only the fields given', () => {
    const merged = mergeDefinition(webhook, { description: 'd', name: undefined });
    expect(merged).toEqual({ ...webhook, description: 'd' });
    expect(mergeDefinition(webhook, { placeholders: [] }).placeholders).toEqual([]);
  });
});
