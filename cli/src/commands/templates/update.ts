import type { TemplateUpdateBody } from '@sched/sdk';
import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';
import { details, readFile, readTemplateFile } from './show.js';

export function configureTemplatesUpdateCommand(templates: Command): void {
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
}
