import { describe, expect, it } from 'vitest';
import { type RecipientDirectory, resolveRecipients } from './recipients.js';

const memberId = '6f1c2a52-7f3e-4a63-9a43-0d5d2b9c1e11';
const subscription = { endpoint: 'https://push.example.com/s/1', keys: { p256dh: 'k', auth: 'a' } };

const directory: RecipientDirectory = {
  contact: async () => ({ name: 'Ada', email: 'ada@example.com', phone: null }),
  channel: async () => null,
  teamMember: async (id) =>
    id === memberId
      ? {
          name: 'Pat',
          email: 'pat@example.com',
          phone: null,
          push_subscriptions: [subscription, subscription],
        }
      : null,
  byAddress: async () => null,
};

const resolve = (references: string[]) =>
  resolveRecipients(references, {
    channels: undefined,
    directory,
    field: 'gate.recipients',
    slackTeamsAllowed: true,
  });

describe('resolveRecipients', () => {
  it('asks the same person once, however often or however they are named', async () => {
    const r = await resolve([memberId, 'ada@example.com', memberId, ` ${memberId} `, 'ada@example.com']);
    expect(r.ok && r.recipients.map((x) => x.reference)).toEqual([memberId, 'ada@example.com']);
  });

  it('reaches each distinct destination once: a subscription listed twice is one target', async () => {
    const r = await resolve([memberId]);
    expect(r.ok && r.recipients[0]!.targets).toEqual([
      { channel: 'email', email: 'pat@example.com', name: 'Pat' },
      { channel: 'push', subscription },
    ]);
  });

  it('keeps people who share nothing apart, and still reports unknown references', async () => {
    const r = await resolve(['a@example.com', 'b@example.com', '+15551234567']);
    expect(r.ok && r.recipients).toHaveLength(3);
    const bad = await resolve(['a@example.com', 'nobody']);
    expect(bad).toMatchObject({ ok: false, errors: { 'gate.recipients.1': [expect.any(String)] } });
  });
});
