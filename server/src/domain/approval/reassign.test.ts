import { describe, expect, it } from 'vitest';
import { isOnGate, reassignRefusal, requiredAfterReassign } from './reassign.js';

const action = (status: string, mode = 'approval') => ({ id: 'a1', mode, status: status as never });
const recipient = (status: string) => ({ address: 'ada@example.com', status: status as never });

describe('reassign refusal', () => {
  it('lets a pending or snoozed recipient of a waiting (or not yet sent) gate be reassigned', () => {
    for (const s of ['awaiting_response', 'scheduled', 'resolved'])
      for (const r of ['pending', 'snoozed']) expect(reassignRefusal(action(s), recipient(r))).toBeNull();
  });

  it('refuses, in the order of the table, a webhook, a finished, paused or sending action, an answer, a reassigned one', () => {
    expect(reassignRefusal(action('scheduled', 'webhook'), recipient('pending'))).toMatch(/not an approval/);
    for (const s of ['executed', 'failed', 'cancelled', 'expired'])
      expect(reassignRefusal(action(s), recipient('pending'))).toMatch(/no longer waits/);
    expect(reassignRefusal(action('paused'), recipient('pending'))).toMatch(/paused/);
    expect(reassignRefusal(action('executing'), recipient('pending'))).toMatch(/being sent/);
    expect(reassignRefusal(action('awaiting_response'), recipient('confirmed'))).toMatch(/already answered/);
    expect(reassignRefusal(action('awaiting_response'), recipient('declined'))).toMatch(/already answered/);
    expect(reassignRefusal(action('awaiting_response'), recipient('reassigned'))).toMatch(
      /already reassigned/,
    );
    // The action's state is read first: a finished gate refuses whatever the recipient did.
    expect(reassignRefusal(action('executed'), recipient('confirmed'))).toMatch(/no longer waits/);
    expect(reassignRefusal(action('scheduled', 'webhook'), null)).toMatch(/not an approval/);
    expect(reassignRefusal(action('awaiting_response'), null)).toBeNull();
  });

  it('a reassigned recipient is no longer on the gate', () => {
    expect(isOnGate({ status: 'reassigned' })).toBe(false);
    expect(isOnGate({ status: 'snoozed' })).toBe(true);
  });
});

describe('required recipients after a reassignment', () => {
  const ada = { reference: 'contact:11111111-1111-4111-8111-111111111111:email', address: 'ada@example.com' };
  const grace = { reference: 'grace@example.com', address: 'grace@example.com' };

  it('the new recipient is required when the old one was (named by address or by contact id)', () => {
    expect(requiredAfterReassign(['ada@example.com'], ada, grace)).toEqual([
      'ada@example.com',
      'grace@example.com',
    ]);
    expect(requiredAfterReassign(['contact:11111111-1111-4111-8111-111111111111'], ada, grace)).toEqual([
      'contact:11111111-1111-4111-8111-111111111111',
      'grace@example.com',
    ]);
  });

  it('changes nothing when the old one was not required, or the new one is already named', () => {
    expect(requiredAfterReassign(['bo@example.com'], ada, grace)).toEqual(['bo@example.com']);
    expect(requiredAfterReassign(['ADA@example.com', 'grace@example.com'], ada, grace)).toEqual([
      'ADA@example.com',
      'grace@example.com',
    ]);
  });
});
