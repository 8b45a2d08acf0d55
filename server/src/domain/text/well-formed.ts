/**
 * `value` with every string in it, keys included, well-formed UTF-16: a lone surrogate half (which JSON's `\ud800`
 * escape can produce) replaced by U+FFFD. Such a string cannot be percent-encoded (`URIError`), stored in jsonb or
 * sent as UTF-8, so text from callers and responders is made well-formed where it enters.
 */
export function wellFormed<T>(value: T): T {
  if (typeof value === 'string') return value.toWellFormed() as T;
  if (Array.isArray(value)) return value.map(wellFormed) as T;
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // Defined, not assigned: a key named `__proto__` stays an own property, as JSON.parse made it.
    Object.defineProperty(out, key.toWellFormed(), {
      value: wellFormed((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out as T;
}

/** Whether JSON text may hold a lone surrogate: only a `\uD800`-`\uDFFF` escape can put one in a parsed value. */
export function mayHoldLoneSurrogate(json: string): boolean {
  return /\\u[dD][89a-fA-F]/.test(json);
}
