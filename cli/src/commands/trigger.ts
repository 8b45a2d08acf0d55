import { Schedule } from '@sched/contract';
import { trigger } from '@sched/sdk';
import type { Command } from 'commander';
import { parseOptions, printText, UsageError } from '../runtime.js';
import { parseTriggerValues } from './templates/show.js';

/** `sched trigger <url> [values...]`: fires a template's public trigger URL (no API key). */
export function configureTriggerCommand(program: Command): void {
  program
    .command('trigger <url> [values...]')
    .description('fire a template trigger URL (no API key): key=value as text, key:=json as JSON')
    .option('--wait <duration>', 'run after this long (e.g. 10m) instead of in about a second')
    .option('--preset <preset>', 'a schedule preset such as tomorrow')
    .action(async (url: string, pairs: string[], opts: { wait?: string; preset?: string }, cmd: Command) => {
      if (opts.wait && opts.preset) throw new UsageError('give --wait or --preset, not both');
      const given = opts.wait ? { wait: opts.wait } : opts.preset ? { preset: opts.preset } : undefined;
      const schedule = given ? parseOptions(Schedule, given) : undefined;
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
