import { describe, expect, it } from 'vitest';
import { colorEnabled, painter } from './color.js';

describe('colour', () => {
  it('at a terminal only; NO_COLOR turns it off, FORCE_COLOR on', () => {
    expect(colorEnabled({ isTTY: true }, {})).toBe(true);
    expect(colorEnabled({ isTTY: false }, {})).toBe(false);
    expect(colorEnabled({}, {})).toBe(false);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(colorEnabled({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(colorEnabled({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(false);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
  });

  it('paints statuses by what they mean, and nothing when off', () => {
    const on = painter(true);
    expect(on.status('failed')).toBe('\u001b[31mfailed\u001b[39m');
    expect(on.status('executed', 'executed  ')).toBe('\u001b[32mexecuted  \u001b[39m');
    expect(on.status('scheduled')).toBe('scheduled');
    expect(on.header('ID')).toBe('\u001b[1mID\u001b[22m');
    const off = painter(false);
    expect(off.status('failed')).toBe('failed');
    expect(off.error('error')).toBe('error');
  });
});
