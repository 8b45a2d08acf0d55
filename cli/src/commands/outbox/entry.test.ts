import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { parseOutboxFilter, toOutboxEntry } from './entry.js';

const account = '6f1c2a52-7f3e-4a63-9a43-0d5d2b9c1e11';
const action = '7f1c2a52-7f3e-4a63-9a43-0d5d2b9c1e12';

describe('parseOutboxFilter', () => {
  it("takes a limit of 1-1000 and ids, checked by the API's query schema", () => {
    expect(parseOutboxFilter({ limit: '50' })).toEqual({ limit: 50 });
    expect(parseOutboxFilter({ limit: '1000', action, account })).toEqual({ limit: 1000, action, account });
    for (const limit of ['0', '1001', 'ten', '-1', '2.5']) {
      expect(() => parseOutboxFilter({ limit })).toThrow(ZodError);
    }
    expect(() => parseOutboxFilter({ limit: '5', account: 'acme' })).toThrow(ZodError);
    expect(() => parseOutboxFilter({ limit: '5', action: 'acme' })).toThrow(/action_id/);
  });
});

describe('toOutboxEntry', () => {
  it('finds the response link and writes the time as ISO 8601', () => {
    const rendered =
      'Approval requested: Deploy\n\nChannel: sms\nTo: +15551234567\nKind: request\n' +
      'Response link: http://127.0.0.1:4000/r/abc_DEF-1\nButtons: Approve / Reject\n\nShip?\n';
    expect(
      toOutboxEntry({
        id: account,
        account_id: account,
        action_id: action,
        channel: 'sms',
        destination: '+15551234567',
        rendered,
        created_at: new Date('2030-01-01T12:00:00Z'),
      }),
    ).toEqual({
      id: account,
      account_id: account,
      action_id: action,
      channel: 'sms',
      destination: '+15551234567',
      response_link: 'http://127.0.0.1:4000/r/abc_DEF-1',
      rendered,
      created_at: '2030-01-01T12:00:00.000Z',
    });
    expect(
      toOutboxEntry({
        id: account,
        account_id: null,
        action_id: null,
        channel: 'email',
        destination: 'a@example.com',
        rendered: 'no link',
        created_at: new Date('2030-01-01T12:00:00Z'),
      }).response_link,
    ).toBeNull();
  });
});
