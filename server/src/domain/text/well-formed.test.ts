import { describe, expect, it } from 'vitest';
import { mayHoldLoneSurrogate, wellFormed } from './well-formed.js';

describe('wellFormed', () => {
  it('replaces lone surrogates in strings, keys and nested values; keeps pairs', () => {
    const parsed = JSON.parse('{"a":"\\ud800","\\udc00k":["x\\ud800y",{"n":1}],"pair":"\\ud83d\\ude00"}');
    expect(wellFormed(parsed)).toEqual({ a: '\ufffd', '\ufffdk': ['x\ufffdy', { n: 1 }], pair: '😀' });
    expect(() => encodeURIComponent(wellFormed('\ud800'))).not.toThrow();
  });

  it('keeps a __proto__ key an own property', () => {
    const out = wellFormed(JSON.parse('{"__proto__":{"polluted":true}}')) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it('tells JSON text that may hold a lone surrogate', () => {
    expect(mayHoldLoneSurrogate('{"a":"\\ud800"}')).toBe(true);
    expect(mayHoldLoneSurrogate('{"a":"\\uDC00"}')).toBe(true);
    expect(mayHoldLoneSurrogate('{"a":"\\u00e9 caf\u00e9"}')).toBe(false);
  });
});
