import { describe, expect, it } from 'vitest';
import {
  type AuditEventBody,
  actionPatternToLike,
  auditHash,
  ChainVerifier,
  canonicalJson,
  canonicalParts,
  GENESIS_HASH,
} from './chain.js';

const event = (seq: number, details: Record<string, unknown> = {}): AuditEventBody => ({
  seq,
  id: `00000000-0000-4000-8000-00000000000${seq}`,
  at: '2026-11-25T04:00:00.000Z',
  action: 'action.create',
  actor: { type: 'api_key', id: 'k1' },
  resource: { type: 'action', id: 'a1' },
  details,
});

function chainOf(n: number) {
  const out: (AuditEventBody & { prev_hash: string; hash: string })[] = [];
  let prev = GENESIS_HASH;
  for (let seq = 1; seq <= n; seq++) {
    const e = event(seq, { n: seq });
    const hash = auditHash(prev, e);
    out.push({ ...e, prev_hash: prev, hash });
    prev = hash;
  }
  return out;
}

describe('canonical JSON', () => {
  it('sorts keys at every depth, drops undefined members, keeps arrays in order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1], c: 'x' }, u: undefined, n: null })).toBe(
      '{"a":{"c":"x","d":[3,1]},"b":1,"n":null}',
    );
  });
  it('is the same whatever order members were written in', () => {
    expect(canonicalJson({ x: 1, y: 2 })).toBe(canonicalJson({ y: 2, x: 1 }));
  });
  it('refuses what JSON cannot hold', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow();
    expect(() => canonicalJson({ f: () => 1 })).toThrow();
  });
});

describe('canonical JSON cut around seq', () => {
  it('joined with any seq is the canonical JSON of the event with that seq, whatever the strings hold', () => {
    const { seq: _, ...awkward } = {
      ...event(1, { seq: 0, '"seq":0': '"seq":0', nested: { seq: [0, null, 1e21] } }),
      resource: { type: 'action', id: '"seq":0,' },
      user_agent: 'x "seq":0 \\ 🚀',
      request_id: '"seq":0',
    };
    const { head, tail } = canonicalParts(awkward);
    for (const seq of [1, 9, 10, 123456789])
      expect(head + seq + tail).toBe(canonicalJson({ ...awkward, seq }));
  });
});

describe('audit hash chain', () => {
  it('is sha256 of the previous hash followed by the canonical event', () => {
    const e = event(1);
    expect(auditHash(GENESIS_HASH, e)).toMatch(/^[0-9a-f]{64}$/);
    expect(auditHash(GENESIS_HASH, e)).not.toBe(auditHash('1'.repeat(64), e));
  });

  it('verifies an intact chain', () => {
    const v = new ChainVerifier(GENESIS_HASH, 1);
    for (const e of chainOf(5)) v.next(e);
    expect(v.result()).toEqual({ ok: true, checked: 5 });
  });

  it('reports the first event whose content changed', () => {
    const chain = chainOf(5);
    chain[2] = { ...chain[2]!, details: { n: 99 } };
    const v = new ChainVerifier(GENESIS_HASH, 1);
    for (const e of chain) v.next(e);
    expect(v.result()).toEqual({ ok: false, checked: 3, brokenAt: 3 });
  });

  it('reports a removed event and a wrong anchor', () => {
    const chain = chainOf(4);
    const v = new ChainVerifier(GENESIS_HASH, 1);
    for (const e of [chain[0]!, chain[2]!, chain[3]!]) v.next(e);
    expect(v.result()).toMatchObject({ ok: false, brokenAt: 3 });
    const anchored = new ChainVerifier(chain[1]!.hash, 3);
    for (const e of chain.slice(2)) anchored.next(e);
    expect(anchored.result()).toEqual({ ok: true, checked: 2 });
  });

  it('checks that the walk ends at the head: a deleted tail breaks at its first missing seq', () => {
    const chain = chainOf(5);
    const whole = new ChainVerifier(GENESIS_HASH, 1);
    for (const e of chain) whole.next(e);
    expect(whole.resultAtHead({ seq: 5, hash: chain[4]!.hash })).toEqual({ ok: true, checked: 5 });
    const cut = new ChainVerifier(GENESIS_HASH, 1);
    for (const e of chain.slice(0, 3)) cut.next(e);
    expect(cut.result()).toEqual({ ok: true, checked: 3 });
    expect(cut.resultAtHead({ seq: 5, hash: chain[4]!.hash })).toEqual({
      ok: false,
      checked: 3,
      brokenAt: 4,
    });
    // A head naming another hash at the same seq (rewritten) does not hold either; an empty log is its genesis head.
    expect(whole.resultAtHead({ seq: 5, hash: GENESIS_HASH })).toMatchObject({ ok: false, brokenAt: 6 });
    expect(new ChainVerifier(GENESIS_HASH, 1).resultAtHead({ seq: 0, hash: GENESIS_HASH })).toEqual({
      ok: true,
      checked: 0,
    });
  });
});

describe('action patterns', () => {
  it('turns * into a LIKE wildcard and escapes the others', () => {
    expect(actionPatternToLike('approval.*')).toBe('approval.%');
    expect(actionPatternToLike('a_b%')).toBe('a\\_b\\%');
  });
});
