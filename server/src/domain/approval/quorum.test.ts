import { describe, expect, it } from 'vitest';
import { type QuorumVoter, quorumDecision, quorumRefusal } from './quorum.js';

const v = (status: QuorumVoter['status'], extra: Partial<QuorumVoter> = {}): QuorumVoter => ({
  status,
  required: false,
  excluded: false,
  ...extra,
});

describe('quorum decision', () => {
  it('2 of 3: one confirmation waits for one more, the second grants', () => {
    expect(quorumDecision(2, [v('confirmed'), v('pending'), v('pending')])).toEqual({
      kind: 'waiting',
      approvalsNeeded: 1,
    });
    expect(quorumDecision(2, [v('confirmed'), v('confirmed'), v('pending')])).toEqual({ kind: 'granted' });
  });

  it('declines at once when a required recipient declines', () => {
    expect(quorumDecision(2, [v('declined', { required: true }), v('confirmed'), v('confirmed')])).toEqual({
      kind: 'declined',
      reason: 'required_declined',
    });
  });

  it('declines as soon as too few are left to reach the quorum', () => {
    expect(quorumDecision(2, [v('declined'), v('pending'), v('pending')]).kind).toBe('waiting');
    expect(quorumDecision(2, [v('declined'), v('declined'), v('pending')])).toEqual({
      kind: 'declined',
      reason: 'unreachable',
    });
  });

  it('waits for a required recipient even past the minimum, and counts what they still owe', () => {
    expect(quorumDecision(2, [v('confirmed'), v('confirmed'), v('pending', { required: true })])).toEqual({
      kind: 'waiting',
      approvalsNeeded: 1,
    });
  });

  it("never counts the requester's confirmation; a snoozed recipient can still approve", () => {
    expect(quorumDecision(2, [v('confirmed', { excluded: true }), v('confirmed'), v('snoozed')])).toEqual({
      kind: 'waiting',
      approvalsNeeded: 1,
    });
  });
});

describe('quorum refusal at create', () => {
  it('refuses when the requester is the only path to the quorum', () => {
    expect(quorumRefusal(3, 3, 1, false)).toMatch(/only 2 recipients/);
    expect(quorumRefusal(2, 3, 1, false)).toBeNull();
    expect(quorumRefusal(2, 3, 1, true)).toMatch(/required/);
  });
});
