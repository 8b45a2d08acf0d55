/**
 * One cell of the audit log's CSV export. Text a spreadsheet would read as a formula (a first character of `=`, `+`,
 * `-`, `@`, TAB or CR: OWASP's "CSV injection") is prefixed with `'`, so an auditor opening the export sees the text
 * an anonymous caller chose (a User-Agent, a name) instead of running it. Quoted when it holds a quote, comma or
 * line break.
 */
export function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A row of cells, CRLF-terminated. */
export function csvRow(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
