import { describe, expect, it } from 'vitest';
import { commentRefusal } from './comment-policy.js';

describe('comment policy', () => {
  it('optional never refuses', () => {
    expect(commentRefusal('optional', 'decline', null)).toBeNull();
  });
  it('required_on_decline refuses a bare decline only', () => {
    expect(commentRefusal('required_on_decline', 'decline', '  ')).toMatch(/decline/);
    expect(commentRefusal('required_on_decline', 'decline', 'no budget')).toBeNull();
    expect(commentRefusal('required_on_decline', 'confirm', null)).toBeNull();
  });
  it('required refuses confirm and decline without one, never a snooze', () => {
    expect(commentRefusal('required', 'confirm', null)).toMatch(/required/);
    expect(commentRefusal('required', 'decline', '')).toMatch(/required/);
    expect(commentRefusal('required', 'snooze', null)).toBeNull();
  });
});
