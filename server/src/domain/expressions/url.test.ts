import { describe, expect, it } from 'vitest';
import { canonicalOrigin } from '@sched/contract';
import { ExpressionError } from './errors.js';
import { interpolateHeaderValue } from './interpolate.js';
import { interpolateUrl, urlExpressionComponents, urlTemplateProblem } from './url.js';

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

describe('interpolateUrl: values never rewrite the URL', () => {
  const scope = (values: Record<string, unknown>) => ({ placeholders: values });

  it.each([
    [
      'https://h.example/orders/{{id}}',
      '../../admin/users/42/delete?x=',
      'https://h.example/orders/..%2F..%2Fadmin%2Fusers%2F42%2Fdelete%3Fx%3D',
    ],
    ['https://h.example/orders/{{id}}', 'a b#c', 'https://h.example/orders/a%20b%23c'],
    ['https://h.example/orders/{{id}}', "x!'()*\\y", 'https://h.example/orders/x%21%27%28%29%2A%5Cy'],
    [
      'https://h.example/q?id={{id}}&k=1',
      '1&admin=true#f',
      'https://h.example/q?id=1%26admin%3Dtrue%23f&k=1',
    ],
    ['https://h.example/p#{{id}}', 'a/b', 'https://h.example/p#a%2Fb'],
    ['https://h.example/orders/v{{id}}', '.', 'https://h.example/orders/v.'],
    ['https://h.example/orders/{{id}}', '%2e%2e', 'https://h.example/orders/%252e%252e'],
    ['https://h.example/orders/{{id}}', 42, 'https://h.example/orders/42'],
  ])('%s with %j stays one value', (template, id, expected) => {
    expect(interpolateUrl(template, scope({ id }))).toBe(expected);
    expect(new URL(expected).host).toBe('h.example');
  });

  it.each([
    ['https://h.example/orders/{{id}}', '..'],
    ['https://h.example/orders/{{id}}', '.'],
    ['https://h.example/orders/{{id}}/x', '..'],
    ['https://h.example/orders/%2e{{id}}', '.'],
    ['https://h.example/orders/{{id}}{{id}}', '.'],
  ])('%s refuses %j (a dot segment)', (template, id) => {
    expect(() => interpolateUrl(template, scope({ id }))).toThrow(ExpressionError);
  });

  it('answers a lone surrogate with the expression error, never a URIError', () => {
    for (const id of ['\ud800', 'a\udfffb']) {
      expect(() => interpolateUrl('https://h.example/orders/{{id}}?q={{id}}', scope({ id }))).toThrow(
        /\{\{id\}\} holds text that is not valid Unicode/,
      );
      expect(() => interpolateUrl('https://h.example/orders/{{id}}', scope({ id }))).toThrow(ExpressionError);
    }
  });

  it('refuses an origin expression without allowed origins, whatever the value', () => {
    for (const template of [
      'https://{{h}}.hooks.example.com/x',
      'https://api.example.com{{h}}',
      '{{h}}',
      '{{h}}://x.example',
    ]) {
      expect(() => interpolateUrl(template, scope({ h: 'x' }))).toThrow(/allowed_origins/);
    }
  });

  it('with allowed origins: the resolved origin must be one of them, and a host value holds no / ? # @', () => {
    const allowed = ['https://a.hooks.example.com', 'https://b.example.com:8443'];
    const t = 'https://{{h}}.hooks.example.com/orders/{{id}}';
    expect(interpolateUrl(t, scope({ h: 'a', id: '1' }), allowed)).toBe(
      'https://a.hooks.example.com/orders/1',
    );
    expect(interpolateUrl(t, scope({ h: 'A', id: '1' }), allowed)).toBe(
      'https://A.hooks.example.com/orders/1',
    );
    for (const h of ['evil.example.net/x?', 'evil.example.net#', 'u@a', 'b', 'a.hooks.example.com\\x']) {
      expect(() => interpolateUrl(t, scope({ h, id: '1' }), allowed), h).toThrow(ExpressionError);
    }
    expect(interpolateUrl('{{u}}', scope({ u: 'https://b.example.com:8443/any/path?q=1' }), allowed)).toBe(
      'https://b.example.com:8443/any/path?q=1',
    );
    for (const u of ['https://b.example.com/x', 'https://user@b.example.com:8443/x', 'not a url']) {
      expect(() => interpolateUrl('{{u}}', scope({ u }), allowed), u).toThrow(ExpressionError);
    }
  });

  it('lists the component of each expression', () => {
    expect(urlExpressionComponents('https://{{a}}.x/{{b}}?c={{c}}#{{d}}').map((f) => f.component)).toEqual([
      'origin',
      'path',
      'query',
      'fragment',
    ]);
    expect(urlExpressionComponents('{{a}}/{{b}}').map((f) => f.component)).toEqual(['origin', 'origin']);
    expect(urlExpressionComponents('https://x.example{{p}}').map((f) => f.component)).toEqual(['origin']);
  });
});

describe('canonicalOrigin', () => {
  it.each([
    ['https://API.example.com', 'https://api.example.com'],
    ['https://api.example.com/', 'https://api.example.com'],
    ['https://api.example.com:443', 'https://api.example.com'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
  ])('%s -> %s', (text, origin) => expect(canonicalOrigin(text)).toBe(origin));
  it.each([
    'https://api.example.com/x',
    'https://u@api.example.com',
    'https://a.example?x',
    'ftp://a.example',
    'a.example',
    'https://a.example#',
  ])('refuses %s', (text) => expect(canonicalOrigin(text)).toBeNull());
});

describe('interpolateHeaderValue', () => {
  it('refuses a value that would end the header line', () => {
    expect(interpolateHeaderValue('Bearer {{t}}', { placeholders: { t: 'abc' } })).toBe('Bearer abc');
    for (const t of ['a\r\nX-Admin: 1', 'a\nb', 'a\0b']) {
      expect(() => interpolateHeaderValue('Bearer {{t}}', { placeholders: { t } })).toThrow(ExpressionError);
    }
  });
});
