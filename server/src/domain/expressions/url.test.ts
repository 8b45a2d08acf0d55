import { describe, expect, it } from 'vitest';
import { urlTemplateProblem } from './url.js';

describe('urlTemplateProblem', () => {
  it.each([
    'https://api.example/orders/{{input.id}}',
    'HTTPS://{{host}}/x',
    '{{input.url}}',
    '{{scheme}}://example.com',
    'htt{{rest}}',
    'https://{{ unclosed',
  ])('lets %j wait for its values', (url) => {
    expect(urlTemplateProblem(url, ['https:'])).toBeNull();
  });

  it.each([
    ['http://api.example/{{id}}', ['https:'], 'must use https'],
    ['ftp://{{host}}/x', ['https:', 'http:'], 'must use https or http'],
    ['example.com/{{id}}', ['https:'], 'must use https'],
    ['/relative/{{id}}', ['https:'], 'must use https'],
    ['', ['https:'], 'must use https'],
    ['htt', ['https:'], 'must use https'],
  ] as const)('refuses %j', (url, schemes, message) => {
    expect(urlTemplateProblem(url, schemes)).toBe(message);
  });

  it('accepts http where private destinations are allowed', () => {
    expect(urlTemplateProblem('http://localhost:8080/{{id}}', ['https:', 'http:'])).toBeNull();
  });
});
