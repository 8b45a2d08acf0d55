import { describe, expect, it } from 'vitest';
import { type DecidingGate, type GateVoter, gateDecision } from './decision.js';

const gate = (extra: Partial<DecidingGate> = {}): DecidingGate => ({
  confirmation_mode: 'first_response',
  min_approvals: null,
  required_recipients: [],
  exclude_requester: null,
  on_timeout: 'cancel',
  ...extra,
});
const voter = (address: string, status: GateVoter['status'], role: GateVoter['role'] = 'recipient') => ({
  address,
  reference: address,
  status,
  role,
});
const confirm = { kind: 'answer', decision: 'confirm', role: 'recipient' } as const;
const decline = { kind: 'answer', decision: 'decline', role: 'recipient' } as const;

describe('gateDecision', () => {
  it('first_response: one confirmation grants, one decline declines', () => {
    const two = [voter('a@x.io', 'confirmed'), voter('b@x.io', 'pending')];
    expect(gateDecision(gate(), two, confirm)).toEqual({ kind: 'granted', event: 'confirm' });
    expect(gateDecision(gate(), [voter('a@x.io', 'declined')], decline)).toEqual({
      kind: 'declined',
      event: 'decline',
      reason: 'declined',
    });
  });

  it('all_required: waits until every recipient still on the gate has confirmed', () => {
    const g = gate({ confirmation_mode: 'all_required' });
    expect(gateDecision(g, [voter('a@x.io', 'confirmed'), voter('b@x.io', 'pending')], confirm)).toEqual({
      kind: 'waiting',
      approvalsNeeded: null,
    });
    // One handed over to someone else no longer counts; its successor does.
    const all = [voter('a@x.io', 'confirmed'), voter('b@x.io', 'reassigned'), voter('c@x.io', 'confirmed')];
    expect(gateDecision(g, all, confirm).kind).toBe('granted');
    expect(gateDecision(g, [voter('a@x.io', 'declined'), voter('b@x.io', 'confirmed')], decline).kind).toBe(
      'declined',
    );
  });

  it('an escalation contact confirming decides alone, in every mode; declining does not in a quorum', () => {
    const esc = { kind: 'answer', decision: 'confirm', role: 'escalation' } as const;
    const recipients = [
      voter('a@x.io', 'pending'),
      voter('b@x.io', 'pending'),
      voter('boss@x.io', 'confirmed', 'escalation'),
    ];
    for (const mode of ['all_required', 'quorum'] as const)
      expect(gateDecision(gate({ confirmation_mode: mode, min_approvals: 2 }), recipients, esc).kind).toBe(
        'granted',
      );
    const declined = [
      voter('a@x.io', 'pending'),
      voter('b@x.io', 'pending'),
      voter('boss@x.io', 'declined', 'escalation'),
    ];
    expect(
      gateDecision(gate({ confirmation_mode: 'quorum', min_approvals: 2 }), declined, {
        ...esc,
        decision: 'decline',
      }),
    ).toEqual({ kind: 'waiting', approvalsNeeded: 2 });
  });

  it('quorum: counts confirmations, never the requester, and declines once it cannot be reached', () => {
    const g = gate({ confirmation_mode: 'quorum', min_approvals: 2, exclude_requester: 'me@x.io' });
    const one = [voter('me@x.io', 'confirmed'), voter('a@x.io', 'confirmed'), voter('b@x.io', 'pending')];
    expect(gateDecision(g, one, confirm)).toEqual({ kind: 'waiting', approvalsNeeded: 1 });
    expect(gateDecision(g, one, { kind: 'standing' })).toEqual({ kind: 'waiting', approvalsNeeded: 1 });
    const two = [voter('me@x.io', 'confirmed'), voter('a@x.io', 'confirmed'), voter('b@x.io', 'confirmed')];
    expect(gateDecision(g, two, confirm).kind).toBe('granted');
    const lost = [voter('me@x.io', 'confirmed'), voter('a@x.io', 'confirmed'), voter('b@x.io', 'declined')];
    expect(gateDecision(g, lost, decline)).toEqual({
      kind: 'declined',
      event: 'decline',
      reason: 'unreachable',
    });
    const required = gate({ confirmation_mode: 'quorum', min_approvals: 1, required_recipients: ['b@x.io'] });
    expect(
      gateDecision(required, [voter('a@x.io', 'confirmed'), voter('b@x.io', 'declined')], decline),
    ).toEqual({
      kind: 'declined',
      event: 'decline',
      reason: 'required_declined',
    });
  });

  it('the timeout applies on_timeout: approve grants, expire and cancel close the gate', () => {
    const pending = [voter('a@x.io', 'pending')];
    expect(gateDecision(gate({ on_timeout: 'approve' }), pending, { kind: 'timeout' })).toEqual({
      kind: 'granted',
      event: 'timeout_approve',
    });
    expect(gateDecision(gate({ on_timeout: 'expire' }), pending, { kind: 'timeout' })).toEqual({
      kind: 'timed_out',
      event: 'timeout_expire',
    });
    expect(gateDecision(gate({ on_timeout: 'cancel' }), pending, { kind: 'timeout' })).toEqual({
      kind: 'timed_out',
      event: 'timeout_cancel',
    });
  });

  it('a standing gate outside quorum only waits', () => {
    expect(gateDecision(gate(), [voter('a@x.io', 'confirmed')], { kind: 'standing' })).toEqual({
      kind: 'waiting',
      approvalsNeeded: null,
    });
  });
});
