import { readFileSync } from 'node:fs';
import { TEMPLATE_TYPES } from '@sched/contract';
import {
  type Schedule,
  type Template,
  type TemplateCreateBody,
  type TemplateSummary,
  type TemplateUpdateBody,
  trigger,
} from '@sched/sdk';
import type { Command } from 'commander';
import { client, formatFields, print, printText, UsageError } from '../runtime.js';
import { oneOf } from './actions-request.js';

const COLUMNS = ['id', 'name', 'type', 'mode', 'is_active', 'trigger_count', 'last_triggered_at'];
const table = (rows: TemplateSummary[]) => ({
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

function details(t: Template): string {
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

const readFile = (path: string) => readFileSync(path === '-' ? 0 : path, 'utf8');

export function configureTemplatesCommands(program: Command): void {
  const templates = program
    .command('templates')
    .description('saved actions and chains with {{placeholders}}, fired by public trigger URLs');
  templates
    .command('create')
    .description('create a template from a JSON body (the trigger URL is shown in full only now)')
    .requiredOption('--file <file>', 'the template as JSON (- for stdin)')
    .action(async (opts: { file: string }, cmd: Command) => {
      const data = await client(cmd).templates.create(
        // The server checks every field and answers 422 naming it.
        readTemplateFile(opts.file, readFile) as TemplateCreateBody,
      );
      printText(cmd, { data }, `${details(data)}\n\nKeep the trigger URL: it is not shown in full again.`);
    });
  templates
    .command('list')
    .option('--type <type>', 'action or chain')
    .option('--page <n>')
    .option('--per-page <n>')
    .action(async (opts: { type?: string; page?: string; perPage?: string }, cmd: Command) => {
      const page = await client(cmd).templates.list({
        ...(opts.type ? { type: oneOf('--type', opts.type, TEMPLATE_TYPES) } : {}),
        ...(opts.page ? { page: Number(opts.page) } : {}),
        ...(opts.perPage ? { per_page: Number(opts.perPage) } : {}),
      });
      print(cmd, page, table(page.data));
    });
  templates.command('get <id>').action(async (id: string, _o: unknown, cmd: Command) => {
    const data = await client(cmd).templates.get(id);
    printText(cmd, { data }, details(data));
  });
  templates
    .command('update <id>')
    .description('change the fields the JSON body gives; the trigger URL stays')
    .requiredOption('--file <file>', 'the fields to change as JSON (- for stdin)')
    .action(async (id: string, opts: { file: string }, cmd: Command) => {
      const data = await client(cmd).templates.update(
        id,
        readTemplateFile(opts.file, readFile) as TemplateUpdateBody,
      );
      printText(cmd, { data }, details(data));
    });
  templates.command('delete <id>').action(async (id: string, _o: unknown, cmd: Command) => {
    await client(cmd).templates.delete(id);
    printText(cmd, { deleted: id }, `deleted ${id}; its trigger URL no longer works`);
  });
  templates
    .command('regenerate-token <id>')
    .description('a new trigger URL; the old one stops working at once')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).templates.regenerateToken(id);
      printText(cmd, { data }, data.trigger_url);
    });
  templates
    .command('toggle <id>')
    .description('enable or disable a template (a disabled one answers 404 on its URL)')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).templates.toggleActive(id);
      printText(cmd, { data }, `${id} is now ${data.is_active ? 'active' : 'inactive'}`);
    });
  templates.command('limits').action(async (_o: unknown, cmd: Command) => {
    const data = await client(cmd).templates.limits();
    printText(
      cmd,
      data,
      `${data.current} of ${data.max} templates (${data.remaining} left, ${data.plan} plan)`,
    );
  });

  program
    .command('trigger <url> [values...]')
    .description('fire a template trigger URL (no API key): key=value as text, key:=json as JSON')
    .option('--wait <duration>', 'run after this long (e.g. 10m) instead of in about a second')
    .option('--preset <preset>', 'a schedule preset such as tomorrow')
    .action(async (url: string, pairs: string[], opts: { wait?: string; preset?: string }, cmd: Command) => {
      if (opts.wait && opts.preset) throw new UsageError('give --wait or --preset, not both');
      // The server checks the preset's name.
      const schedule = (
        opts.wait ? { wait: opts.wait } : opts.preset ? { preset: opts.preset } : undefined
      ) as Schedule | undefined;
      const answer = await trigger(url, parseTriggerValues(pairs), schedule);
      const d = answer.data;
      const ignored = answer.meta.ignored_keys;
      printText(
        cmd,
        answer,
        `${d.id}  ${d.name}  ${d.status}${ignored.length ? `\nignored: ${ignored.join(', ')}` : ''}`,
      );
    });
}
