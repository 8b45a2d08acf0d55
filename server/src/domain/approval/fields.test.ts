import type { GateField } from '@sched/contract';
import { describe, expect, it } from 'vitest';
import { answerValues, checkFieldValue, defaultErrors, fillValues } from './fields.js';

const amount: GateField = { name: 'amount', type: 'integer', required: true, default: 120, min: 1, max: 500 };
const note: GateField = { name: 'note', type: 'text', max_length: 10 };
const urgent: GateField = { name: 'urgent', type: 'boolean', default: false };
const tier: GateField = { name: 'tier', type: 'enum', options: ['gold', 'silver'] };
const fields = [amount, note, urgent, tier];

describe('typed answers', () => {
  it('reads form text as numbers and booleans, the last of repeated values counting', () => {
    expect(checkFieldValue(amount, '90')).toEqual({ ok: true, value: 90 });
    expect(checkFieldValue(amount, '9.5')).toEqual({ ok: false, message: 'must be an integer' });
    expect(checkFieldValue(amount, 0)).toEqual({ ok: false, message: 'must be at least 1' });
    expect(checkFieldValue(amount, '')).toEqual({ ok: true, value: null });
    expect(checkFieldValue(urgent, ['false', 'true'])).toEqual({ ok: true, value: true });
    expect(checkFieldValue(urgent, 'maybe').ok).toBe(false);
    expect(checkFieldValue(tier, 'bronze')).toEqual({ ok: false, message: 'must be one of gold, silver' });
    expect(checkFieldValue(note, 'a\r\nb')).toEqual({ ok: true, value: 'a\nb' });
    expect(checkFieldValue({ name: 's', type: 'string' }, 'a\nb').ok).toBe(false);
    expect(checkFieldValue(note, 'x'.repeat(11)).ok).toBe(false);
    expect(checkFieldValue({ name: 'n', type: 'number' }, 'abc').ok).toBe(false);
  });

  it('a left-out field takes its default; a confirm needs the required ones, a decline does not', () => {
    expect(answerValues(fields, { amount: 90, tier: 'gold' }, 'confirm')).toEqual({
      ok: true,
      values: { amount: 90, urgent: false, tier: 'gold' },
    });
    expect(answerValues(fields, undefined, 'confirm')).toEqual({
      ok: true,
      values: { amount: 120, urgent: false },
    });
    expect(answerValues(fields, { amount: null }, 'confirm')).toEqual({
      ok: false,
      errors: { 'values.amount': ['is required'] },
    });
    expect(answerValues(fields, { amount: '' }, 'decline')).toEqual({ ok: true, values: { urgent: false } });
    expect(answerValues(fields, { amount: 'x', other: 1 }, 'decline')).toEqual({
      ok: false,
      errors: { 'values.other': ['is not a field of this request'], 'values.amount': ['must be an integer'] },
    });
  });

  it('a snooze and a gate without fields answer no values; a default must fit its own field', () => {
    expect(answerValues(fields, { amount: 3 }, 'snooze')).toEqual({ ok: true, values: null });
    expect(answerValues([], undefined, 'confirm')).toEqual({ ok: true, values: null });
    expect(answerValues([], { a: 1 }, 'confirm').ok).toBe(false);
    expect(defaultErrors([amount, { ...tier, default: 'bronze' }, { ...amount, default: 900 }])).toEqual({
      'gate.fields.1.default': ['must be one of gold, silver'],
      'gate.fields.2.default': ['must be at most 500'],
    });
  });
});

describe('a post-approval body with the typed answer in', () => {
  it('a whole reference keeps the type; inside text it is the text; an unknown one is empty', () => {
    expect(
      fillValues(
        {
          amount: '{{values.amount}}',
          note: 'pay {{ values.amount }} EUR{{values.none}}',
          list: ['{{values.ok}}'],
        },
        { amount: 90, ok: true },
      ),
    ).toEqual({ amount: 90, note: 'pay 90 EUR', list: [true] });
    expect(fillValues('amount={{values.amount}}', { amount: 90 })).toBe('amount=90');
    expect(fillValues(null, { amount: 90 })).toBeNull();
  });
});
