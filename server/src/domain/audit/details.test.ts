import { describe, expect, it } from 'vitest';
import { auditReplayOptions, auditUrl, recipientReference } from './details.js';

describe('what an audit event may record', () => {
  it('a URL without its query, fragment or user info', () => {
    expect(auditUrl('https://api.example.com/hooks/orders?key=SECRET#x')).toBe(
      'https://api.example.com/hooks/orders?***',
    );
    expect(auditUrl('https://user:pw@api.example.com:8443/a')).toBe('https://api.example.com:8443/a');
    expect(auditUrl('https://api.example.com')).toBe('https://api.example.com/');
    expect(auditUrl('not a url')).toBeNull();
  });

  it("a replay's overrides with header names only and the body as a flag", () => {
    expect(
      auditReplayOptions({
        schedule: { wait: '1m' },
        request: { headers: { Authorization: 'Bearer NEW-TOKEN' }, body: { card: '4111111111111111' } },
      }),
    ).toEqual({
      schedule: { wait: '1m' },
      request: { headers: { Authorization: '***' }, body_replaced: true },
    });
    expect(auditReplayOptions({ timezone: 'UTC' })).toEqual({ timezone: 'UTC' });
  });

  it('a recipient by reference, never by address or number', () => {
    expect(recipientReference('contact:6d2c0f1e-0000-4000-8000-000000000001:email')).toBe(
      'contact:6d2c0f1e-0000-4000-8000-000000000001:email',
    );
    expect(recipientReference('channel:ops')).toBe('channel:ops');
    expect(recipientReference('jane.private@example.com')).toBeUndefined();
    expect(recipientReference('+1 (555) 010-0100')).toBeUndefined();
  });
});
