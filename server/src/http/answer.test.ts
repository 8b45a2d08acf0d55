import { describe, expect, it } from 'vitest';
import { parseAnswer } from './answer.js';

describe('parseAnswer (the contract’s ResponseInput, for forms and JSON)', () => {
  it('accepts a urlencoded form as parsed into an object, ignoring the snooze select unless snoozing', () => {
    const form = Object.fromEntries(new URLSearchParams('decision=confirm&comment=Looks+good&snooze_for=1h'));
    expect(parseAnswer(form)).toEqual({
      ok: true,
      decision: 'confirm',
      comment: 'Looks good',
      snoozeFor: null,
      grantTtl: null,
      via: 'page',
    });
  });

  it('accepts JSON with only a decision, and a snooze with its duration', () => {
    expect(parseAnswer({ decision: 'decline' })).toEqual({
      ok: true,
      decision: 'decline',
      comment: null,
      snoozeFor: null,
      grantTtl: null,
      via: 'page',
    });
    expect(parseAnswer({ decision: 'confirm', via: 'push' })).toMatchObject({ ok: true, via: 'push' });
    expect(parseAnswer({ decision: 'confirm', via: 'slack' })).toMatchObject({ ok: false });
    expect(parseAnswer({ decision: 'snooze', snooze_for: '4h' })).toMatchObject({
      ok: true,
      snoozeFor: '4h',
    });
    expect(parseAnswer({ decision: 'snooze' })).toMatchObject({ ok: true, snoozeFor: null });
  });

  it('treats a blank comment as none and counts CRLF line breaks as one character', () => {
    expect(parseAnswer({ decision: 'confirm', comment: '   ' })).toMatchObject({ ok: true, comment: null });
    const lines = `${'a'.repeat(249)}\r\n${'b'.repeat(250)}`; // 500 chars as the browser's maxlength counts
    expect(parseAnswer({ decision: 'confirm', comment: lines })).toMatchObject({
      ok: true,
      comment: `${'a'.repeat(249)}\n${'b'.repeat(250)}`,
    });
  });

  it.each([
    [{ decision: 'confirm', comment: 'x'.repeat(500) }, null],
    [{ decision: 'confirm', comment: 'x'.repeat(501) }, ['comment']],
    [{}, ['decision']],
    [{ decision: '' }, ['decision']],
    [{ decision: 'approve' }, ['decision']],
    [{ decision: ['confirm', 'decline'] }, ['decision']],
    [{ decision: 'confirm', comment: 5 }, ['comment']],
    [{ decision: 'snooze', snooze_for: '1x' }, ['snooze_for']],
    [{ decision: 'snooze', snooze_for: '1.5h' }, ['snooze_for']],
    [{ decision: 'snooze', snooze_for: 60 }, ['snooze_for']],
    [
      { decision: 'nope', comment: 'x'.repeat(501), snooze_for: 'soon' },
      ['comment', 'decision', 'snooze_for'],
    ],
    [null, ['body']],
    [undefined, ['body']],
    [['confirm'], ['body']],
  ])('validates %j', (body, fields) => {
    const result = parseAnswer(body);
    if (fields === null) expect(result.ok).toBe(true);
    else expect(result.ok ? [] : Object.keys(result.errors).sort()).toEqual(fields);
  });

  it('words a bad duration as the contract does', () => {
    const result = parseAnswer({ decision: 'snooze', snooze_for: 'soon' });
    expect(result).toEqual({ ok: false, errors: { snooze_for: [expect.stringContaining('whole number')] } });
  });

  it("reads a form's typed answer from its values.<name> inputs: an emptied one is null, the last repeat counts", () => {
    const parsed = parseAnswer({
      decision: 'confirm',
      'values.amount': '90',
      'values.note': '',
      'values.urgent': ['false', 'true'],
      grant_ttl: '1h',
    });
    expect(parsed).toMatchObject({
      ok: true,
      values: { amount: '90', note: null, urgent: 'true' },
      grantTtl: '1h',
    });
    // The grant select is submitted with every button: only a confirm gives it.
    expect(parseAnswer({ decision: 'decline', grant_ttl: '1h' })).toMatchObject({ grantTtl: null });
    expect(parseAnswer({ decision: 'confirm', values: { amount: [1] } })).toMatchObject({ ok: false });
  });
});
