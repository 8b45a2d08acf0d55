import { describe, expect, it } from 'vitest';
import { shownAddress, shownHeaders, shownText, shownUrl } from './api-key.js';

describe('what a key without the write scope sees of stored credentials and personal data', () => {
  it('header values masked, names kept', () => {
    expect(shownHeaders({ Authorization: 'Bearer x' }, false)).toEqual({ Authorization: '***' });
    expect(shownHeaders({ Authorization: 'Bearer x' }, true)).toEqual({ Authorization: 'Bearer x' });
  });

  it('URLs as their origin, path and query masked', () => {
    const url = 'https://events.example-pager.com/integration/R0UTING-KEY/enqueue?token=t';
    expect(shownUrl(url, false)).toBe('https://events.example-pager.com/***');
    expect(shownUrl('http://127.0.0.1:8080/cb', false)).toBe('http://127.0.0.1:8080/***');
    expect(shownUrl(url, true)).toBe(url);
    expect(shownUrl('::', false)).toBe('***');
  });

  it('email addresses and phone numbers masked, other names kept', () => {
    expect(shownAddress('jane.private@example.com', false)).toBe('j***@example.com');
    expect(shownAddress('+15555550100', false)).toBe('+1******0100');
    expect(shownAddress('+1 (555) 555-0100', false)).toBe('+1******0100');
    expect(shownAddress('#ops-alerts', false)).toBe('#ops-alerts');
    expect(shownAddress(null, false)).toBeNull();
    expect(shownAddress('jane.private@example.com', true)).toBe('jane.private@example.com');
  });

  it('addresses and numbers inside a timeline note masked', () => {
    expect(shownText('reassigned from cy@example.com to +15555550100: Cy is on leave', false)).toBe(
      'reassigned from c***@example.com to +1******0100: Cy is on leave',
    );
    expect(shownText('reminder 1 to cy@example.com', true)).toBe('reminder 1 to cy@example.com');
    expect(shownText(null, false)).toBeNull();
  });
});
