import { describe, expect, it } from 'vitest';
import { isOnGate, requiredAfterReassign } from './reassign.js';

describe('on the gate', () => {
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
