import { describe, expect, it } from 'vitest';
import { buildTriggerToken, hashTriggerToken, maskedToken, triggerUrl } from './token.js';

describe('trigger tokens', () => {
  it('are 256 bits as 43 base64url characters, stored as their SHA-256', () => {
    const t = buildTriggerToken(Buffer.alloc(32, 0xfb));
    expect(t.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(t.hash).toBe(hashTriggerToken(t.token));
    expect(t.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(t.prefix).toBe(t.token.slice(0, 6));
    expect(buildTriggerToken(Buffer.alloc(32, 1)).hash).not.toBe(t.hash);
  });

  it('make URLs under the public root, and masked forms that keep only the first characters', () => {
    expect(triggerUrl('https://sched.example.com/', 'abc')).toBe('https://sched.example.com/t/abc');
    expect(maskedToken('abcdef')).toBe('abcdef…');
  });
});
