import { createClient, SchedApiError, type SchedClient, SchedConnectionError } from '@sched/sdk';
import { issueMessage } from '@sched/contract';
import type { Command } from 'commander';
import { colorEnabled, type Painter, painter } from './color.js';
import { ZodError, type z } from 'zod';
import { readLocalCredentials, readUserConfig, resolveConnection } from './settings.js';

/** Exit codes: 0 success, 1 the server or database refused, 2 bad usage. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export class UsageError extends Error {}

interface GlobalOptions {
  apiUrl?: string;
  apiKey?: string;
  json?: boolean;
}

/** Flags, then the environment, then `sched config set`, then a local server's credentials (see settings.ts). */
function connection(
  opts: GlobalOptions,
  env: NodeJS.ProcessEnv = process.env,
): { baseUrl: string; apiKey: string } {
  const resolved = resolveConnection({
    flags: { apiUrl: opts.apiUrl, apiKey: opts.apiKey },
    env,
    config: readUserConfig(env),
    local: () => readLocalCredentials(env),
  });
  if (!resolved.apiKey) {
    const hint = resolved.hint ? ` (${resolved.hint})` : '';
    throw new UsageError(
      `no API key: pass --api-key, set SCHED_API_KEY, or run \`sched config set api-key <key>\`${hint}`,
    );
  }
  return { baseUrl: resolved.baseUrl, apiKey: resolved.apiKey };
}

export function client(cmd: Command): SchedClient {
  return createClient(connection(cmd.optsWithGlobals<GlobalOptions>()));
}

export function wantsJson(cmd: Command): boolean {
  return Boolean(cmd.optsWithGlobals<GlobalOptions>().json);
}

/** Prints JSON for scripts (`--json`), or a table for people. */
export function print(
  cmd: Command,
  value: unknown,
  table?: { rows: Record<string, unknown>[]; columns: string[] },
): void {
  if (wantsJson(cmd) || !table) {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    return;
  }
  process.stdout.write(`${formatTable(table.rows, table.columns)}\n`);
}

/** How one value shows in a table or a field list: `-` for null and undefined, JSON for objects. */
function cell(v: unknown): string {
  return v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** Columns whose values are statuses, painted by what they mean at a terminal. */
const STATUS_COLUMNS = new Set(['status', 'state', 'circuit']);

export function formatTable(
  rows: Record<string, unknown>[],
  columns: string[],
  paint: Painter = painter(colorEnabled(process.stdout)),
): string {
  if (rows.length === 0) return '(none)';
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const last = columns.length - 1;
  // Padded before painting (escape codes take no room on screen); the last column is never padded.
  const line = (values: string[], style: (v: string, i: number) => string) =>
    values
      .map((v, i) => style(i === last ? v.trimEnd() : v.padEnd(widths[i]!), i))
      .join('  ')
      .trimEnd();
  return [
    line(
      columns.map((c) => c.toUpperCase()),
      (v) => paint.header(v),
    ),
    ...rows.map((r) =>
      line(
        columns.map((c) => cell(r[c])),
        (v, i) => (STATUS_COLUMNS.has(columns[i]!) ? paint.status(v.trim(), v) : v),
      ),
    ),
  ].join('\n');
}

/** `error` in red at a terminal (stderr), as it is everywhere else. */
const errorWord = () => painter(colorEnabled(process.stderr)).error('error');

export function reportError(err: unknown): number {
  if (err instanceof SchedApiError) {
    process.stderr.write(`${errorWord()} [${err.code}]: ${err.message} (HTTP ${err.status})\n`);
    for (const [field, messages] of Object.entries(err.errors)) {
      for (const m of messages) process.stderr.write(`  ${field}: ${m}\n`);
    }
    return EXIT.failed;
  }
  if (err instanceof UsageError) {
    process.stderr.write(`${errorWord()}: ${err.message}\n`);
    return EXIT.usage;
  }
  if (err instanceof ZodError) {
    // Options checked by the contract's schema (parseOptions) before any request: reported as the server's 422
    // would be, with the same code, messages and exit code.
    const fields = err.issues.map((i) => [i.path.join('.') || 'options', i.message] as const);
    const [first] = fields;
    process.stderr.write(
      `${errorWord()} [validation_failed]: ${first ? `${first[0]}: ${first[1]}` : 'invalid options'}\n`,
    );
    for (const [field, message] of fields) process.stderr.write(`  ${field}: ${message}\n`);
    return EXIT.failed;
  }
  if (err instanceof SchedConnectionError) {
    process.stderr.write(`${errorWord()}: ${err.message}\n`);
    return EXIT.failed;
  }
  process.stderr.write(`${errorWord()}: ${(err as Error)?.message ?? String(err)}\n`);
  return EXIT.failed;
}

export function parseNumber(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${name} must be a positive number`);
  return n;
}

/** Accumulates a repeatable option (`--header a --header b`) into an array. */
export function collectOption(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Under a list page for people: where it is in the list, and how to see more (nothing when it is the only page). */
export function printPageLine(
  cmd: Command,
  meta: { current_page: number; last_page: number; total: number; total_exact?: boolean },
  noun: string,
): void {
  if (wantsJson(cmd) || meta.last_page <= 1) return;
  const about = meta.total_exact === false ? 'about ' : '';
  process.stdout.write(
    `page ${meta.current_page} of ${about}${meta.last_page} (${about}${meta.total} ${noun}; --page N or --all for more)\n`,
  );
}

/** Prints JSON for scripts (`--json`), or the given text for people. */
export function printText(cmd: Command, value: unknown, text: string): void {
  if (wantsJson(cmd)) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  else process.stdout.write(`${text}\n`);
}

/** A `label  value` block for one resource; null and undefined show as `-`, objects as JSON. */
export function formatFields(fields: [string, unknown][]): string {
  const width = Math.max(0, ...fields.map(([label]) => label.length));
  return fields.map(([label, value]) => `${label.padEnd(width)}  ${cell(value)}`.trimEnd()).join('\n');
}

/**
 * Parses a verb's options with a schema of the contract (its body or query schema), so the CLI refuses what the API
 * would, with the API's messages and code (`validation_failed`, exit 1), before any request.
 */
export function parseOptions<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  return schema.parse(input, { error: issueMessage });
}
