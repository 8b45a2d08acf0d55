import { describe, expect, it } from 'vitest';
import { readReply, replyTokenIn, sameAddress } from './reply.js';

describe('reading a reply to an approval email', () => {
  it('takes the first word of the first line and the rest of the paragraph as the comment', () => {
    expect(readReply('Approve - looks fine\n\nOn Sat, 28 Nov 2026 ops wrote:\n> Approval needed')).toEqual({
      ok: true,
      decision: 'confirm',
      comment: 'looks fine',
    });
    expect(readReply('\n  no: too early\nwait for Monday\n\nthanks\n')).toEqual({
      ok: true,
      decision: 'decline',
      comment: 'too early\nwait for Monday',
    });
    expect(readReply('OK')).toEqual({ ok: true, decision: 'confirm', comment: null });
    expect(readReply('Snooze please')).toMatchObject({ ok: true, decision: 'snooze' });
    for (const word of ['approved', 'yes', 'confirm', 'Approve.'])
      expect(readReply(word)).toMatchObject({ ok: true, decision: 'confirm' });
    for (const word of ['decline', 'Reject', 'NO'])
      expect(readReply(word)).toMatchObject({ ok: true, decision: 'decline' });
  });

  it('refuses an unclear first line, a word that only starts like one, and an empty reply', () => {
    expect(readReply('Maybe later')).toMatchObject({ ok: false });
    expect(readReply('nothing to say')).toMatchObject({ ok: false });
    expect(readReply('okay then')).toMatchObject({ ok: false });
    expect(readReply('> approve\n> quoted only')).toMatchObject({ ok: false });
    expect(readReply('   \n')).toMatchObject({ ok: false });
  });

  it('keeps a comment within 500 characters', () => {
    const r = readReply(`approve ${'x'.repeat(700)}`);
    expect(r.ok && r.comment?.length).toBe(500);
  });

  it('finds the token of a reply address on its own domain only', () => {
    const token = 'a'.repeat(48);
    expect(
      replyTokenIn(
        [`someone@example.com`, `Reply+${token.toUpperCase()}@Replies.Example.com`],
        'replies.example.com',
      ),
    ).toBe(token);
    expect(replyTokenIn([`reply+${token}@elsewhere.com`], 'replies.example.com')).toBeNull();
    expect(replyTokenIn([`reply+short@replies.example.com`], 'replies.example.com')).toBeNull();
    expect(sameAddress('Ada@Example.com', 'ada@example.com ')).toBe(true);
    expect(sameAddress('ada@example.com', null)).toBe(false);
  });
});
