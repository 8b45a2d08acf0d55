import { describe, expect, it } from 'vitest';
import { providerAdapter } from './provider.js';
import { sampleApprovalMessage } from './testing.js';

describe('providerAdapter', () => {
  it('hands its own channel’s targets to the sender and refuses another channel’s with a failed receipt', async () => {
    const seen: string[] = [];
    const sms = providerAdapter('sms', async (target) => {
      seen.push(target.phone);
      return { ok: true, via: 'provider', providerMessageId: 'SM1' };
    });
    expect(sms).toMatchObject({ name: 'sms', configured: true });
    expect(await sms.send({ channel: 'sms', phone: '+15551234567' }, sampleApprovalMessage())).toEqual({
      ok: true,
      via: 'provider',
      providerMessageId: 'SM1',
    });
    expect(await sms.send({ channel: 'email', email: 'ada@example.com' }, sampleApprovalMessage())).toEqual({
      ok: false,
      via: 'provider',
      error: 'sms channel cannot send to a email target',
    });
    expect(seen).toEqual(['+15551234567']);
  });
});
