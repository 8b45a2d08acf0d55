import { describe, expect, it } from 'vitest';
import { ActionCreateBody, jsonDepth, MAX_JSON_DEPTH, MAX_REQUEST_HEADERS } from './action.js';
import { paginationQuery } from './common.js';

const base = { url: 'https://example.com/hook' };
const nested = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i += 1) v = i % 2 ? [v] : { a: v };
  return v;
};
const pathsOf = (body: unknown) => {
  const r = ActionCreateBody.safeParse(body);
  return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
};

describe('upper bounds of the action body (docs/security.md)', () => {
  it('counts JSON depth without recursion, even far past the limit', () => {
    expect(jsonDepth(1)).toBe(0);
    expect(jsonDepth({ a: [1] })).toBe(2);
    expect(jsonDepth(nested(100_000))).toBe(MAX_JSON_DEPTH + 1);
  });

  it('refuses a request body nested deeper than the limit, and keeps one at the limit', () => {
    expect(pathsOf({ request: { ...base, body: nested(MAX_JSON_DEPTH) } })).toEqual([]);
    expect(pathsOf({ request: { ...base, body: nested(MAX_JSON_DEPTH + 1) } })).toEqual(['request.body']);
  });

  it('refuses more headers than the limit', () => {
    const headers = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`x-h${i}`, 'v']));
    expect(pathsOf({ request: { ...base, headers: headers(MAX_REQUEST_HEADERS) } })).toEqual([]);
    expect(pathsOf({ request: { ...base, headers: headers(MAX_REQUEST_HEADERS + 1) } })).toEqual([
      'request.headers',
    ]);
  });

  it('bounds recurrence.frequency, timestamp strings and the page number', () => {
    const recurrence = { frequency: 1e12, unit: 'm', end_type: 'never' };
    expect(pathsOf({ request: base, recurrence })).toEqual(['recurrence.frequency']);
    const long = `2030-01-01T00:00:00${'0'.repeat(100)}Z`;
    for (const field of ['scheduled_for', 'execute_at', 'execute_at_utc']) {
      expect(pathsOf({ request: base, [field]: long })).toEqual([field]);
    }
    expect(
      pathsOf({ request: base, recurrence: { frequency: 1, unit: 'd', end_type: 'date', end_date: long } }),
    ).toEqual(['recurrence.end_date']);
    expect(paginationQuery(20).page.safeParse('1000001').success).toBe(false);
  });
});
