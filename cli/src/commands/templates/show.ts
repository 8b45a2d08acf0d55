import { readFileSync } from 'node:fs';
import type { Template, TemplateSummary } from '@sched/sdk';
import { formatFields, UsageError } from '../../runtime.js';

const COLUMNS = ['id', 'name', 'type', 'mode', 'is_active', 'trigger_count', 'last_triggered_at'];
export const table = (rows: TemplateSummary[]) => ({
  rows: rows as unknown as Record<string, unknown>[],
  columns: COLUMNS,
});

/** A template body from a JSON file, or from stdin for `-`. */
export function readTemplateFile(path: string, read: (path: string) => string): Record<string, unknown> {
  let text: string;
  try {
    text = read(path);
  } catch (err) {
    throw new UsageError(`--file: cannot read ${path}: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--file ${path}: not JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`--file ${path}: must hold a JSON object`);
  return value as Record<string, unknown>;
}

/**
 * Trigger values from `key=value` arguments (the value as text, as an HTML form would send it) or `key:=json`
 * (a JSON value: `qty:=3`, `urgent:=true`).
 */
export function parseTriggerValues(pairs: string[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const pair of pairs) {
    const m = /^([A-Za-z0-9_]+)(:?=)([\s\S]*)$/.exec(pair);
    if (!m) throw new UsageError(`'${pair}' is not key=value or key:=json`);
    const [, key, op, raw] = m as unknown as [string, string, string, string];
    if (op === '=') values[key] = raw;
    else {
      try {
        values[key] = JSON.parse(raw);
      } catch {
        throw new UsageError(`${key}:= takes a JSON value; '${raw}' is not JSON`);
      }
    }
  }
  return values;
}

export function details(t: Template): string {
  return formatFields([
    ['id', t.id],
    ['name', t.name],
    ['type', t.type],
    ['mode', t.mode],
    ['active', t.is_active],
    ['trigger url', t.trigger_url],
    ['placeholders', t.placeholders.map((p) => `${p.name}${p.required ? ' (required)' : ''}`).join(', ')],
    ['triggers', t.trigger_count],
    ['failed triggers', t.failed_trigger_count],
    ['last triggered', t.last_triggered_at],
    ['last error', t.last_error],
  ]);
}

export const readFile = (path: string) => readFileSync(path === '-' ? 0 : path, 'utf8');
