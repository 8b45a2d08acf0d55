import { describe, expect, it } from 'vitest';
import { formToTriggerBody } from './trigger.js';

describe('an HTML form as a trigger body', () => {
  it('keeps fields as text, the last of repeated ones, and gathers schedule.* into schedule', () => {
    expect(
      formToTriggerBody({
        order_id: 'A-17',
        qty: '',
        tag: ['a', 'b'],
        'schedule.wait': '10m',
        'schedule.timezone': '',
      }),
    ).toEqual({ order_id: 'A-17', qty: '', tag: 'b', schedule: { wait: '10m' } });
    expect(formToTriggerBody({ a: '1' })).toEqual({ a: '1' });
  });
});
