import { describe, expect, it } from 'vitest';
import { formatDuration, MAX_DURATION_MS, parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['1s', 1_000],
    ['10m', 600_000],
    ['4h', 14_400_000],
    ['7d', 604_800_000],
    ['1w', 604_800_000],
    ['010m', 600_000],
    ['3650d', 3_650 * 86_400_000],
  ])('parses %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    '',
    '0s',
    '0w',
    '-5m',
    '+5m',
    '1.5h',
    '5',
    'm',
    '5 m',
    ' 5m',
    '5m ',
    '5M',
    '5H',
    '5ms',
    '5y',
    '1h30m',
    '999999999999999w',
    '3653d',
    '522w',
  ])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeNull();
  });

  it('accepts exactly the 10-year ceiling', () => {
    expect(parseDuration('3652d')).toBe(MAX_DURATION_MS);
  });
});

describe('formatDuration', () => {
  it.each([
    [30_000, '30s'],
    [90_000, '90s'],
    [600_000, '10m'],
    [5_400_000, '90m'],
    [14_400_000, '4h'],
    [86_400_000, '1d'],
    [604_800_000, '1w'],
    [1_209_600_000, '2w'],
    [864_000_000, '10d'],
    [1_499, '1s'],
    [0, '0s'],
  ])('formats %d as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('round-trips every unit', () => {
    for (const text of ['45s', '59m', '23h', '6d', '3w']) {
      expect(formatDuration(parseDuration(text)!)).toBe(text);
    }
  });

  it('refuses negative or non-finite values', () => {
    expect(() => formatDuration(-1_000)).toThrow(RangeError);
    expect(() => formatDuration(Number.NaN)).toThrow(RangeError);
  });
});
