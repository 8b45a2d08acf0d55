import { type Schedule, trigger } from '@sched/sdk';
import type { Command } from 'commander';
import { printText, UsageError } from '../../runtime.js';
import { configureTemplatesCreateCommand } from './create.js';
import { configureTemplatesListCommand } from './list.js';
import { configureTemplatesGetCommand } from './get.js';
import { configureTemplatesUpdateCommand } from './update.js';
import { configureTemplatesDeleteCommand } from './delete.js';
import { configureTemplatesRegenerateTokenCommand } from './regenerate-token.js';
import { configureTemplatesToggleCommand } from './toggle.js';
import { configureTemplatesLimitsCommand } from './limits.js';
import { parseTriggerValues } from './show.js';

export { readTemplateFile, parseTriggerValues } from './show.js';

export function configureTemplatesCommands(program: Command): void {
  const templates = program
    .command('templates')
    .description('saved actions and chains with {{placeholders}}, fired by public trigger URLs');
  configureTemplatesCreateCommand(templates);
  configureTemplatesListCommand(templates);
  configureTemplatesGetCommand(templates);
  configureTemplatesUpdateCommand(templates);
  configureTemplatesDeleteCommand(templates);
  configureTemplatesRegenerateTokenCommand(templates);
  configureTemplatesToggleCommand(templates);
  configureTemplatesLimitsCommand(templates);
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
